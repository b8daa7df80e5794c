import { z } from 'zod';
import { AppError } from '../errors.ts';

/** Every integer the API accepts is bounded by ±(2^53-1) (spec §2); zod's .int() already refuses unsafe ones. */
export const MAX_INT = Number.MAX_SAFE_INTEGER;

const CLEAN_TEXT = 'must not contain NUL bytes or unpaired surrogates';
const isClean = (s: string) => !s.includes('\u0000') && s.isWellFormed();

/** A string PostgreSQL can store and a client can render: no NUL, no lone surrogates, bounded length. */
export const text = (opts: { min?: number; max: number }) =>
  z.string().min(opts.min ?? 0).max(opts.max).refine(isClean, CLEAN_TEXT);

export const SLUG_PATTERN = /^[a-z0-9-]+$/;
export const slug = () => z.string().min(2).max(120).regex(SLUG_PATTERN, 'must be lowercase letters, digits and hyphens');
/** Lookup by slug: any non-empty string (an unknown one is a 404, not a 400). */
export const slugRef = () => text({ min: 1, max: 200 });

export const oere = () => z.number().int().min(0).max(MAX_INT);
export const positiveOere = () => z.number().int().min(1).max(MAX_INT);
export const limit = (dflt: number) => z.number().int().min(1).max(100).default(dflt);

export const httpUrl = () => z.url({ protocol: /^https?$/, hostname: z.regexes.domain }).max(2048).refine(isClean, CLEAN_TEXT);

/** Output timestamps: ISO 8601 UTC ending in Z (spec §2). */
export const timestamp = () => z.iso.datetime();
/** Input timestamps: ISO 8601 with Z or an offset. */
export const timestampInput = () => z.iso.datetime({ offset: true });

export const stringMap = () => z.record(text({ min: 1, max: 200 }), text({ max: 2000 }));

/**
 * A partial-update `patch` for entities whose slug is immutable. `slug` is declared (equal to the current one is
 * harmless) so that a changed slug is answered 422 slug_immutable by `fieldsToChange`, not 400 "unknown field".
 */
export const immutableSlugPatch = <S extends z.ZodRawShape>(shape: S) =>
  z
    .strictObject({
      slug: z.string().optional().describe('Only accepted when equal to the current slug: slugs are immutable (422 slug_immutable).'),
      ...shape,
    })
    .refine((p) => Object.keys(p).length > 0, 'must contain at least one field to change');

/** The patch without `slug`, after refusing a slug change (422) and a patch that would change nothing (400). */
export function fieldsToChange<P extends { slug?: string }>(currentSlug: string, patch: P, what: string): Omit<P, 'slug'> {
  const { slug, ...rest } = patch;
  if (slug !== undefined && slug !== currentSlug) {
    throw new AppError('slug_immutable', `The slug of ${what} "${currentSlug}" cannot be changed; remove slug from patch.`);
  }
  if (Object.keys(rest).length === 0) throw new AppError('invalid_request', 'patch: must contain at least one field to change');
  return rest;
}
