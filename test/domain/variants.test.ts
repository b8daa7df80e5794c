import { describe, expect, it } from 'vitest';
import { checkOptions, combinations, orderedValues, planVariants, valuesByName, VARIANT_LIMITS } from '../../src/domain/variants.ts';
import { AppError } from '../../src/errors.ts';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return 'ok';
};

const LENS = { name: 'Lens colour', values: ['Grey', 'Brown', 'Green'] };
const SIZE = { name: 'Size', values: ['S', 'M'] };
const values = (n: number, prefix = 'v') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('checkOptions', () => {
  it('accepts up to the limits', () => {
    expect(codeOf(() => checkOptions([]))).toBe('ok');
    expect(codeOf(() => checkOptions([LENS, SIZE]))).toBe('ok');
    expect(codeOf(() => checkOptions([{ name: 'Size', values: values(VARIANT_LIMITS.variants) }]))).toBe('ok');
  });

  it('answers each limit with its own code', () => {
    expect(codeOf(() => checkOptions([LENS, SIZE, { name: 'A', values: ['x'] }, { name: 'B', values: ['y'] }]))).toBe('option_limit_exceeded');
    expect(codeOf(() => checkOptions([{ name: 'Size', values: values(VARIANT_LIMITS.valuesPerOption + 1) }]))).toBe('option_value_limit_exceeded');
    expect(codeOf(() => checkOptions([{ name: 'A', values: values(11) }, { name: 'B', values: values(10) }]))).toBe('variant_limit_exceeded');
  });

  it('refuses duplicate names and values (case and surrounding space ignored) and options without values', () => {
    expect(codeOf(() => checkOptions([LENS, { name: 'lens colour ', values: ['x'] }]))).toBe('invalid_options');
    expect(codeOf(() => checkOptions([{ name: 'Size', values: ['S', 's'] }]))).toBe('invalid_options');
    expect(codeOf(() => checkOptions([{ name: 'Size', values: [] }]))).toBe('invalid_options');
  });
});

describe('combinations', () => {
  it('lists every combination, the first option varying slowest', () => {
    expect(combinations([SIZE, { name: 'Tier', values: ['a', 'b'] }])).toEqual([['S', 'a'], ['S', 'b'], ['M', 'a'], ['M', 'b']]);
    expect(combinations([])).toEqual([[]]);
  });
});

describe('orderedValues', () => {
  it('wants one known value per option, named, and orders them as the options', () => {
    expect(orderedValues([LENS, SIZE], { Size: 'S', 'Lens colour': 'Grey' })).toEqual(['Grey', 'S']);
    expect(codeOf(() => orderedValues([LENS, SIZE], { Size: 'S' }))).toBe('variant_options_mismatch');
    expect(codeOf(() => orderedValues([LENS], { Colour: 'Grey' }))).toBe('variant_options_mismatch');
    expect(codeOf(() => orderedValues([LENS], { 'Lens colour': 'Pink' }))).toBe('variant_options_mismatch');
    expect(codeOf(() => orderedValues([], { 'Lens colour': 'Grey' }))).toBe('variant_options_mismatch');
    expect(orderedValues([], {})).toEqual([]);
  });

  it('shows values by name again', () => {
    expect(valuesByName([LENS, SIZE], ['Grey', 'S'])).toEqual({ 'Lens colour': 'Grey', Size: 'S' });
  });
});

describe('planVariants', () => {
  it('turns the default variant into the first combination and creates the rest', () => {
    expect(planVariants([], [LENS], [{ id: 'd', optionValues: [], position: 0 }])).toEqual({
      keep: [{ id: 'd', optionValues: ['Grey'] }], create: [['Brown'], ['Green']], remove: [],
    });
  });

  it('removes the variants of a dropped value and keeps the others', () => {
    const variants = [{ id: 'g', optionValues: ['Grey'], position: 0 }, { id: 'b', optionValues: ['Brown'], position: 1 }];
    expect(planVariants([LENS], [{ name: 'Lens colour', values: ['Grey', 'Blue'] }], variants)).toEqual({
      keep: [{ id: 'g', optionValues: ['Grey'] }], create: [['Blue']], remove: ['b'],
    });
  });

  it('gives every variant the first value of an added option, matching options by name', () => {
    const variants = [{ id: 'g', optionValues: ['Grey'], position: 0 }];
    expect(planVariants([LENS], [SIZE, LENS], variants)).toEqual({
      keep: [{ id: 'g', optionValues: ['S', 'Grey'] }],
      create: [['S', 'Brown'], ['S', 'Green'], ['M', 'Grey'], ['M', 'Brown'], ['M', 'Green']],
      remove: [],
    });
  });

  it('keeps the first variant by position of those that coincide once an option is removed', () => {
    const variants = [
      { id: 'late', optionValues: ['Grey', 'M'], position: 1 },
      { id: 'early', optionValues: ['Grey', 'S'], position: 0 },
    ];
    expect(planVariants([LENS, SIZE], [], variants)).toEqual({ keep: [{ id: 'early', optionValues: [] }], create: [], remove: ['late'] });
  });
});
