import { z } from 'zod';
import { defineTool } from '../registry/define-tool.ts';
import { answeredAs } from '../schemas/domain-issue.ts';
import { MAX_INT } from '../schemas/numbers.ts';
import { slugRef, text } from '../schemas/text.ts';
import { Variant, variantFields } from '../schemas/variants.ts';
import {
  adjustVariantStock, createVariant, deleteVariant, updateVariant, variantEntity, variantSnapshot, variantView,
} from '../services/variants.ts';

const variantId = () => text({ min: 1, max: 100 });
const v = variantFields;
const optional = Object.fromEntries(Object.entries(v).map(([k, s]) => [k, s.optional()])) as {
  [K in keyof typeof v]: z.ZodOptional<(typeof v)[K]>;
};

const VariantPatch = z.strictObject(optional).refine((p) => Object.keys(p).length > 0, 'must contain at least one field to change').meta({ minProperties: 1 });

export const variantTools = [
  defineTool({
    name: 'variants.create',
    title: 'Create a variant',
    description: 'Adds a variant to a product, with a value of each option. Stock defaults to 0.',
    scope: 'products:write',
    kind: 'write',
    errors: ['not_found', 'conflict', 'invalid_image_url', 'variant_options_mismatch', 'variant_limit_exceeded', 'variant_image_unknown'],
    audit: { appendOnly: ['variant'] },
    input: z.strictObject({ productSlug: slugRef(), ...optional, priceDkk: v.priceDkk }),
    output: Variant,
    async handler({ productSlug, ...fields }, ctx) {
      const { product, variant } = await createVariant(ctx.db, productSlug, fields);
      ctx.audit({ entityType: 'variant', entityId: variant.id, before: null, after: variantSnapshot(variant) });
      return variantView(product.options, variant);
    },
  }),

  defineTool({
    name: 'variants.update',
    title: 'Update a variant',
    description: 'Partial update of a live variant; fields left out are unchanged.',
    scope: 'products:write',
    kind: 'write',
    idempotent: true,
    errors: ['not_found', 'conflict', 'invalid_image_url', 'variant_options_mismatch', 'variant_image_unknown', 'value_out_of_range'],
    audit: { reversible: [variantEntity] },
    input: z.strictObject({ variantId: variantId(), patch: VariantPatch }),
    output: Variant,
    async handler({ variantId: id, patch }, ctx) {
      const { product, before, after } = await updateVariant(ctx.db, id, patch);
      ctx.audit({ entityType: 'variant', entityId: id, before: variantSnapshot(before), after: variantSnapshot(after) });
      return variantView(product.options, after);
    },
  }),

  defineTool({
    name: 'variants.delete',
    title: 'Delete a variant',
    description: 'Soft-deletes a variant (not a product’s last); carts holding it show it unavailable. Needs confirm: true.',
    scope: 'products:write',
    kind: 'write',
    destructive: true,
    idempotent: true,
    requiresConfirm: true,
    errors: ['not_found', 'last_variant'],
    audit: { reversible: [variantEntity] },
    input: z.strictObject({ variantId: variantId() }),
    output: z.object({ ok: z.literal(true), variantId: z.string() }),
    async handler({ variantId: id }, ctx) {
      const { before, after } = await deleteVariant(ctx.db, id);
      ctx.audit({ entityType: 'variant', entityId: id, before: variantSnapshot(before), after: variantSnapshot(after) });
      return { ok: true as const, variantId: id };
    },
  }),

  defineTool({
    name: 'variants.adjust_stock',
    title: 'Adjust a variant’s stock',
    description: 'Adds delta units (negative removes) atomically; below 0 only on backorder.',
    scope: 'products:write',
    kind: 'write',
    errors: ['not_found', 'value_out_of_range'],
    audit: { reversible: [variantEntity] },
    input: z.strictObject({
      variantId: variantId(),
      delta: z.number().int().min(-MAX_INT).max(MAX_INT).refine((d) => d !== 0, { message: 'must not be 0', params: answeredAs('value_out_of_range') }),
    }),
    output: z.object({ variantId: z.string(), stock: z.number().int(), available: z.boolean() }),
    async handler({ variantId: id, delta }, ctx) {
      const { product, before, after } = await adjustVariantStock(ctx.db, id, delta);
      ctx.audit({ entityType: 'variant', entityId: id, before: variantSnapshot(before), after: variantSnapshot(after) });
      const view = variantView(product.options, after);
      return { variantId: id, stock: view.stock, available: view.available };
    },
  }),
];
