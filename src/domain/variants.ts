import { AppError } from '../errors.ts';

/** The limits of a product's options and variants (docs/catalog.md, "Variants"); each has its own 422 code. */
export const VARIANT_LIMITS = { options: 3, valuesPerOption: 100, variants: 100 } as const;

export type ProductOptionInput = { name: string; values: string[] };

/** The key two names or values collide on: "Grey" and " grey" are one value to a buyer. */
const collisionKey = (s: string) => s.trim().toLowerCase();

function firstDuplicate(items: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const item of items) {
    const key = collisionKey(item);
    if (seen.has(key)) return item;
    seen.add(key);
  }
  return undefined;
}

/** How many variants the options make: the product of their value counts (1 without options). */
export const combinationCount = (options: readonly ProductOptionInput[]) => options.reduce((n, o) => n * o.values.length, 1);

/** Checks a product's options against the limits and for duplicates; throws the limit's or invalid_options' 422. */
export function checkOptions(options: readonly ProductOptionInput[]): void {
  if (options.length > VARIANT_LIMITS.options) {
    throw new AppError('option_limit_exceeded', `options: ${options.length} given; a product has at most ${VARIANT_LIMITS.options} options.`);
  }
  const duplicateName = firstDuplicate(options.map((o) => o.name));
  if (duplicateName !== undefined) throw new AppError('invalid_options', `options: the name "${duplicateName}" is given twice.`);
  for (const option of options) {
    if (option.values.length === 0) throw new AppError('invalid_options', `options: "${option.name}" has no values.`);
    if (option.values.length > VARIANT_LIMITS.valuesPerOption) {
      throw new AppError('option_value_limit_exceeded', `options: "${option.name}" has ${option.values.length} values; an option has at most ${VARIANT_LIMITS.valuesPerOption}.`);
    }
    const duplicateValue = firstDuplicate(option.values);
    if (duplicateValue !== undefined) throw new AppError('invalid_options', `options: "${option.name}" lists the value "${duplicateValue}" twice.`);
  }
  const count = combinationCount(options);
  if (count > VARIANT_LIMITS.variants) {
    throw new AppError('variant_limit_exceeded', `options: they make ${count} combinations; a product has at most ${VARIANT_LIMITS.variants} variants.`);
  }
}

/** Every combination of the options' values, the first option varying slowest (the order a shop lists them in). */
export function combinations(options: readonly ProductOptionInput[]): string[][] {
  return options.reduce<string[][]>((acc, option) => acc.flatMap((prefix) => option.values.map((v) => [...prefix, v])), [[]]);
}

/** The option values a variant is given, by option name ({"Lens colour": "Grey"}), in the order of the product's options. */
export function orderedValues(options: readonly ProductOptionInput[], chosen: Readonly<Record<string, string>>): string[] {
  const names = Object.keys(chosen);
  const unknown = names.find((n) => !options.some((o) => o.name === n));
  if (unknown !== undefined || names.length !== options.length) {
    throw new AppError(
      'variant_options_mismatch',
      options.length === 0
        ? 'options: the product has no options; set them with products.set_options first.'
        : `options: give one value for each of ${options.map((o) => `"${o.name}"`).join(', ')}${unknown === undefined ? '' : ` ("${unknown}" is not one)`}.`,
    );
  }
  return options.map((o) => {
    const value = chosen[o.name];
    if (!o.values.includes(value)) throw new AppError('variant_options_mismatch', `options: "${value}" is not a value of "${o.name}" (${o.values.map((v) => `"${v}"`).join(', ')}).`);
    return value;
  });
}

/** A variant's values by option name, as the API shows them. */
export const valuesByName = (options: readonly ProductOptionInput[], values: readonly string[]): Record<string, string> =>
  Object.fromEntries(options.flatMap((o, i) => (values[i] === undefined ? [] : [[o.name, values[i]]])));

/** The key of a combination, for comparing two variants' values. */
export const combinationKey = (values: readonly string[]) => JSON.stringify(values);

export type PlannedVariant = { id: string; optionValues: readonly string[]; position: number };

export type VariantPlan = {
  /** Existing variants that stay, with their values under the new options (changed when an option was added or removed). */
  keep: { id: string; optionValues: string[] }[];
  /** Combinations no live variant has: created. */
  create: string[][];
  /** Variants whose value was removed from an option, or that became a duplicate when an option was removed. */
  remove: string[];
};

/**
 * What setting new options does to the live variants, the way Shopify does it: options are matched by name. A variant
 * keeps its value of an option that stays (removed when that value was dropped); an added option gives every existing
 * variant the option's first value; a removed option is dropped from every variant, and of variants that then
 * coincide the first by position stays. Every combination no variant has is created. Always at least one variant
 * stays: without options the product's first variant is its default one.
 */
export function planVariants(current: readonly ProductOptionInput[], next: readonly ProductOptionInput[], variants: readonly PlannedVariant[]): VariantPlan {
  const ordered = [...variants].sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1));
  const seen = new Set<string>();
  const keep: VariantPlan['keep'] = [];
  const remove: string[] = [];
  for (const variant of ordered) {
    const values: string[] = [];
    for (const option of next) {
      const was = current.findIndex((o) => o.name === option.name);
      const value = was === -1 ? option.values[0] : variant.optionValues[was];
      if (value === undefined || !option.values.includes(value)) break;
      values.push(value);
    }
    const key = combinationKey(values);
    if (values.length !== next.length || seen.has(key)) remove.push(variant.id);
    else {
      seen.add(key);
      keep.push({ id: variant.id, optionValues: values });
    }
  }
  const create = combinations(next).filter((values) => !seen.has(combinationKey(values)));
  return { keep, create, remove };
}
