import { z } from 'zod';
import { AppError } from '../errors.ts';

/**
 * The JSON Schema of "at least one of these fields", published with an object (`.meta(atLeastOneOf(…))`) so that
 * the schema refuses what the server refuses: an update that names nothing to change.
 */
export const atLeastOneOf = (fields: readonly string[]) => ({ anyOf: fields.map((field) => ({ required: [field] })) });

/**
 * A partial-update `patch` for entities whose slug is immutable. `slug` is declared (equal to the current one is
 * harmless) so that a changed slug is answered 422 slug_immutable by `fieldsToChange`, not 400 "unknown field".
 * The schema asks for at least one field other than slug (a changed slug alone is still answered 422 slug_immutable).
 */
export const immutableSlugPatch = <S extends z.ZodRawShape>(shape: S) =>
  z
    .strictObject({
      slug: z.string().optional().describe('Only accepted when equal to the current slug: slugs are immutable (422 slug_immutable).'),
      ...shape,
    })
    .refine((p) => Object.keys(p).length > 0, 'must contain at least one field to change')
    .meta(atLeastOneOf(Object.keys(shape)));

/** The patch without `slug`, after refusing a slug change (422) and a patch that would change nothing (400). */
export function fieldsToChange<P extends { slug?: string }>(currentSlug: string, patch: P, what: string): Omit<P, 'slug'> {
  const { slug, ...rest } = patch;
  if (slug !== undefined && slug !== currentSlug) {
    throw new AppError('slug_immutable', `The slug of ${what} "${currentSlug}" cannot be changed; remove slug from patch.`);
  }
  if (Object.keys(rest).length === 0) throw new AppError('invalid_request', 'patch: must contain at least one field to change');
  return rest;
}
