import { describe, expect, it } from 'vitest';
import { firstFreeSlug, MAX_SLUG_LENGTH, slugify } from '../../src/domain/slug.ts';
import { SLUG_PATTERN } from '../../src/schemas/text.ts';

const derive = (title: string, maxLength?: number) => slugify(title, { fallback: 'service', maxLength });

describe('slugify', () => {
  it.each([
    ['Eye exam', 'eye-exam'],
    ['Brilleservice på Ærø', 'brilleservice-paa-aero'],
    ['Øjenundersøgelse', 'ojenundersogelse'],
    ['Crème brûlée Ångström', 'creme-brulee-aangstrom'],
    ['Straße & Œuvre', 'strasse-oeuvre'],
    ['  --Hello,   World!--  ', 'hello-world'],
    ['ＦＵＬＬ width ﬁt', 'full-width-fit'],
    ['100% Ray-Ban', '100-ray-ban'],
  ])('folds %j into %j', (title, expected) => {
    expect(derive(title)).toBe(expected);
  });

  it('falls back when nothing survives folding', () => {
    expect(derive('眼科检查')).toBe('service');
    expect(derive('🕶️ !')).toBe('service');
    expect(derive('A!')).toBe('service');
  });

  it('stays within maxLength without a trailing hyphen', () => {
    const s = derive(`${'word '.repeat(60)}end`);
    expect(s.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
    expect(s).not.toMatch(/-$/);
    expect(derive('abcde fghij', 6)).toBe('abcde');
  });

  it('always matches the slug pattern', () => {
    for (const title of ['ÆØÅ æøå', 'Ħęłłø Ŵøřłđ', 'x'.repeat(500), '\u0301\u0301ab', 'İstanbul ıi']) {
      const s = derive(title);
      expect(s).toMatch(SLUG_PATTERN);
      expect(s.length).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('firstFreeSlug', () => {
  it('returns the base when it is free', () => {
    expect(firstFreeSlug('eye-exam', new Set(['eye-exam-2']))).toBe('eye-exam');
  });

  it('suffixes -2, -3 … until free', () => {
    expect(firstFreeSlug('eye-exam', new Set(['eye-exam']))).toBe('eye-exam-2');
    expect(firstFreeSlug('eye-exam', new Set(['eye-exam', 'eye-exam-2', 'eye-exam-3']))).toBe('eye-exam-4');
  });

  it('shortens the base so the suffix fits', () => {
    // Cut to fit, this base would end in a hyphen ("aaa…a-" + "-2"); the hyphen is dropped.
    const base = `${'a'.repeat(MAX_SLUG_LENGTH - 3)}-bc`;
    const s = firstFreeSlug(base, new Set([base]));
    expect(s).toBe(`${'a'.repeat(MAX_SLUG_LENGTH - 3)}-2`);
    expect(firstFreeSlug('x'.repeat(MAX_SLUG_LENGTH), new Set(['x'.repeat(MAX_SLUG_LENGTH)]))).toHaveLength(MAX_SLUG_LENGTH);
  });
});
