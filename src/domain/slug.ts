/** Longest slug the API accepts (shared-schemas.ts `slug()`); derived slugs stay within it, suffix included. */
export const MAX_SLUG_LENGTH = 120;

/**
 * Letters NFKD does not decompose into a base letter plus marks. å does decompose (to a + ring), but Danish and
 * Norwegian spell it "aa" in ASCII, so it is mapped before decomposition.
 */
const LETTERS: Record<string, string> = {
  æ: 'ae', Æ: 'ae', ø: 'o', Ø: 'o', å: 'aa', Å: 'aa',
  ß: 'ss', œ: 'oe', Œ: 'oe', đ: 'd', Đ: 'd', ð: 'd', Ð: 'd', þ: 'th', Þ: 'th', ł: 'l', Ł: 'l', ı: 'i',
};
const SPECIAL = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'g');

/**
 * A URL slug for a title: special letters spelled out, accents folded (NFKD, marks dropped), lowercase, every run
 * of other characters a single hyphen, no leading or trailing hyphen, at most `maxLength` characters. The result
 * matches `^[a-z0-9-]+$` and has at least 2 characters: `fallback` stands in for titles with fewer letters or
 * digits that survive folding (e.g. only CJK or emoji).
 */
export function slugify(title: string, opts: { fallback: string; maxLength?: number }): string {
  const maxLength = opts.maxLength ?? MAX_SLUG_LENGTH;
  const folded = title
    .replace(SPECIAL, (c) => LETTERS[c])
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  const trimmed = folded.slice(0, Math.max(2, maxLength)).replace(/^-+|-+$/g, '');
  return trimmed.length >= 2 ? trimmed : opts.fallback;
}

/**
 * `base` when no existing slug equals it, else the first free `base-2`, `base-3` … The base is shortened (never
 * ending in a hyphen) so that base plus suffix still fits in `maxLength`.
 */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>, maxLength = MAX_SLUG_LENGTH): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, maxLength - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
