import { z } from 'zod';
import { AppError } from '../errors.ts';

/**
 * A partial-update `patch` for entities whose slug is immutable. `slug` is declared (equal to the current one is
 * harmless) so that a changed slug is answered 422 slug_immutable by `fieldsToChange`, not 400 "unknown field".
 * The schema publishes `minProperties: 1` (an empty patch breaks it: 400); a patch naming only the current slug is
 * valid under it and answered 422 nothing_to_change. One keyword instead of an `anyOf` of every field keeps the
 * tool list short.
 */
export const immutableSlugPatch = <S extends z.ZodRawShape>(shape: S) =>
  z
    .strictObject({
      slug: z.string().optional().describe('Only accepted when equal to the current slug: slugs are immutable (422 slug_immutable).'),
      ...shape,
    })
    .refine((p) => Object.keys(p).length > 0, 'must contain at least one field to change')
    .meta({ minProperties: 1 });

/** The patch without `slug`, after refusing a slug change and a patch that would change nothing (both 422). */
export function fieldsToChange<P extends { slug?: string }>(currentSlug: string, patch: P, what: string): Omit<P, 'slug'> {
  const { slug, ...rest } = patch;
  if (slug !== undefined && slug !== currentSlug) {
    throw new AppError('slug_immutable', `The slug of ${what} "${currentSlug}" cannot be changed; remove slug from patch.`);
  }
  if (Object.keys(rest).length === 0) throw new AppError('nothing_to_change', 'patch: name at least one field to change besides slug.');
  return rest;
}
