import { z } from 'zod';
import { answeredAs } from '../../schemas/domain-issue.ts';
import { text } from '../../schemas/text.ts';
import { checkImageUrl } from '../image-url.ts';

// Prop builders shared by the section modules. Every prop has a default, so `{ id, key }` alone is a valid
// section (props is optional); list items inside a prop are the one place with required fields.

/** Visible text; '' means "not shown". */
export const copy = (max: number) => text({ max }).default('');

/** A public https image URL (the storefront renders it: no http, credentials, IP literals or local hosts). */
export const imageUrl = () =>
  z
    .string()
    .max(2048)
    .superRefine((raw, ctx) => {
      const checked = checkImageUrl(raw);
      if (!checked.ok) ctx.addIssue({ code: 'custom', message: `image URL ${checked.reason}`, params: answeredAs('invalid_image_url') });
    })
    .describe('Public https image URL: no credentials, IP addresses or local host names (400 invalid_image_url).');

/** An image that may be left empty; null renders nothing (or the section's placeholder). */
export const optionalImage = () => imageUrl().nullable().default(null);

const SITE_PATH = /^\/(?!\/)[^\s]*$/;
const isLinkTarget = (v: string) => {
  if (SITE_PATH.test(v)) return true;
  try {
    return new URL(v).protocol === 'https:';
  } catch {
    return false;
  }
};

/** A link target: a path on this site (`/info/about`) or an https URL; nothing a browser would execute. */
export const link = () =>
  text({ min: 1, max: 2048 })
    .refine(isLinkTarget, { message: 'must be a site path starting with "/" or an https URL', params: answeredAs('invalid_layout') })
    .describe('A site path starting with "/" or an https URL (422 invalid_layout otherwise).')
    .nullable()
    .default(null);

/** Grid width in columns. */
export const columns = (min: number, max: number, dflt: number) => z.number().int().min(min).max(max).default(dflt);

/**
 * One entry of the section whitelist. `props` is a strict object (a misspelt prop is refused, not ignored) whose
 * fields all have defaults.
 */
export type SectionDefinition<K extends string = string> = {
  key: K;
  description: string;
  props: z.ZodObject<z.ZodRawShape, z.core.$strict>;
};
