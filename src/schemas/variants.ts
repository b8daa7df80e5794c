import { z } from 'zod';
import { oere, positiveOere } from './numbers.ts';
import { mapKey, text } from './text.ts';
import { imageRef } from './web.ts';

const optionText = () => text({ min: 1, max: 100 });

/**
 * A product's option as set_options takes it. The bounds here only cap the body; the product's limits (3 options,
 * 100 values, 100 variants) are domain rules answered with their own 422 codes (src/domain/variants.ts).
 */
export const ProductOption = z.strictObject({ name: optionText(), values: z.array(optionText()).max(1000) });

/** A variant's option values by option name. */
export const OptionChoice = z.record(mapKey(100), optionText()).describe('A value per option: {"Size": "M"}.');

/** A variant's writable fields; each optional (create requires priceDkk). Positions follow the options' order. */
export const variantFields = {
  options: OptionChoice,
  sku: text({ min: 1, max: 100 }).nullable().describe('Unique among live variants.'),
  priceDkk: positiveOere(),
  compareAtPriceDkk: positiveOere().nullable(),
  stock: oere(),
  trackStock: z.boolean(),
  allowBackorder: z.boolean().describe('Sold at zero stock too.'),
  images: z.array(imageRef()).max(50).describe('Images of the product.'),
};

export const Variant = z.object({
  id: z.string(),
  sku: z.string().nullable(),
  options: z.record(z.string(), z.string()),
  priceDkk: z.number().int(),
  compareAtPriceDkk: z.number().int().nullable(),
  stock: z.number().int(),
  trackStock: z.boolean(),
  allowBackorder: z.boolean(),
  available: z.boolean().describe('In stock, on backorder or untracked.'),
  position: z.number().int(),
  images: z.array(z.string()),
});
