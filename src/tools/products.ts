import { z } from 'zod';
import { defineTool } from '../registry/define-tool.ts';
import { limit, oere, positiveOere } from '../schemas/numbers.ts';
import { fieldsToChange, immutableSlugPatch } from '../schemas/patch.ts';
import { slug, slugRef, stringMap, text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { ProductOption, Variant } from '../schemas/variants.ts';
import { imageRef } from '../schemas/web.ts';
import { reportStockImageUse, stockImageFor, stockImageMeta } from '../services/images/stock-source.ts';
import {
  attachImage, createProduct, getProduct, productEntity, productSnapshot, searchProducts, softDeleteProduct, updateProduct,
} from '../services/products.ts';
import { setOptions, variantSnapshot, variantView } from '../services/variants.ts';

const Faq = z.array(z.strictObject({ q: text({ min: 1, max: 1000 }), a: text({ min: 1, max: 5000 }) })).max(100);
const UseCases = z.array(z.strictObject({ title: text({ min: 1, max: 200 }), description: text({ min: 1, max: 2000 }) })).max(100);

/** Fields shared by create and update, with their write constraints. */
const productFields = {
  name: text({ min: 2, max: 200 }),
  description: text({ min: 10, max: 20_000 }),
  priceDkk: positiveOere().describe('Price in øre (1/100 DKK).'),
  stock: oere(),
  brand: text({ max: 200 }).nullable(),
  frameColor: text({ max: 100 }).nullable(),
  lensColor: text({ max: 100 }).nullable(),
  attributes: stringMap(),
  answerSummary: text({ max: 500 }),
  faq: Faq,
  useCases: UseCases,
  comparisonFacts: stringMap(),
  categoryId: text({ min: 1, max: 100 }).describe('Category id (cuid); or use categorySlug.'),
  categorySlug: slugRef().describe('Category slug; or use categoryId.'),
  featured: z.boolean(),
  images: z.array(imageRef()).max(50),
};

const f = productFields;

const ProductsCreateInput = z.strictObject({
  name: f.name,
  slug: slug().describe('Unique; cannot be changed later.'),
  description: f.description,
  priceDkk: f.priceDkk,
  stock: f.stock,
  brand: f.brand.optional(),
  frameColor: f.frameColor.optional(),
  lensColor: f.lensColor.optional(),
  attributes: f.attributes.optional(),
  answerSummary: f.answerSummary.optional(),
  faq: f.faq.optional(),
  useCases: f.useCases.optional(),
  comparisonFacts: f.comparisonFacts.optional(),
  categoryId: f.categoryId.optional(),
  categorySlug: f.categorySlug.optional(),
  featured: f.featured.default(false),
  images: f.images.default([]),
});

const ProductPatch = immutableSlugPatch(
  Object.fromEntries(Object.entries(productFields).map(([k, s]) => [k, s.optional()])) as {
    [K in keyof typeof productFields]: z.ZodOptional<(typeof productFields)[K]>;
  },
);

const ProductsUpdateInput = z.strictObject({ slug: slugRef(), patch: ProductPatch });
const IdSlug = z.strictObject({ id: z.string(), slug: z.string() });

const ProductsSearchInput = z.strictObject({
  q: text({ max: 200 }).optional().describe('Matches name, brand and description, case-insensitively and literally.'),
  categorySlug: slugRef().optional(),
  brand: text({ max: 200 }).optional(),
  frameColor: text({ max: 100 }).optional(),
  lensColor: text({ max: 100 }).optional(),
  featured: z.boolean().optional(),
  inStock: z.boolean().optional(),
  minPriceOere: oere().optional(),
  maxPriceOere: oere().optional(),
  optionValue: text({ min: 1, max: 100 }).optional().describe('A variant has this value; price and stock filters then apply to it.'),
  limit: limit(20),
});

const ProductSummary = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  brand: z.string().nullable(),
  priceDkk: z.number().int(),
  stock: z.number().int(),
  featured: z.boolean(),
  frameColor: z.string().nullable(),
  lensColor: z.string().nullable(),
  categorySlug: z.string(),
  categoryName: z.string(),
  firstImage: z.string().nullable(),
  variantCount: z.number().int(),
  maxPriceDkk: z.number().int().describe('Highest variant price; priceDkk is the lowest.'),
});

const CategoryRef = z.object({ slug: z.string(), name: z.string(), description: z.string().nullable() });

const ProductDetail = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  brand: z.string().nullable(),
  description: z.string(),
  priceDkk: z.number().int(),
  stock: z.number().int(),
  featured: z.boolean(),
  frameColor: z.string().nullable(),
  lensColor: z.string().nullable(),
  images: z.array(z.string()),
  category: CategoryRef,
  createdAt: timestamp(),
  options: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
  variants: z.array(Variant).describe('Live variants; buy one by id or sku.'),
});

export const productTools = [
  defineTool({
    name: 'products.search',
    title: 'Search products',
    description: 'Searches the live catalog. All filters are optional and combined with AND; results are newest first. Amounts are in øre.',
    scope: 'catalog:read',
    anonymous: true,
    kind: 'read',
    errors: [],
    input: ProductsSearchInput,
    output: z.array(ProductSummary),
    handler: (input, ctx) => searchProducts(ctx.db, input),
  }),

  defineTool({
    name: 'products.get',
    title: 'Get a product',
    description: 'Returns one live product by slug, with its category, options and live variants. Soft-deleted products are not found.',
    scope: 'catalog:read',
    anonymous: true,
    kind: 'read',
    errors: ['not_found'],
    input: z.strictObject({ slug: slugRef() }),
    output: ProductDetail,
    handler: ({ slug: s }, ctx) => getProduct(ctx.db, s),
  }),

  defineTool({
    name: 'products.create',
    title: 'Create a product',
    description: 'Creates a product. The slug is unique also against soft-deleted products. Without categoryId/categorySlug the product goes to the "uncategorized" category.',
    scope: 'products:write',
    kind: 'write',
    errors: ['not_found', 'conflict', 'invalid_image_url'],
    audit: { appendOnly: ['product'] },
    input: ProductsCreateInput,
    output: IdSlug,
    async handler(input, ctx) {
      const created = await createProduct(ctx.db, input);
      ctx.audit({ entityType: 'product', entityId: created.id, before: null, after: productSnapshot(created) });
      return { id: created.id, slug: created.slug };
    },
  }),

  defineTool({
    name: 'products.update',
    title: 'Update a product',
    description: 'Applies a partial update to a live product; fields left out of patch are unchanged.',
    scope: 'products:write',
    kind: 'write',
    idempotent: true,
    errors: ['not_found', 'slug_immutable', 'nothing_to_change', 'invalid_image_url', 'variant_required'],
    audit: { reversible: [productEntity] },
    input: ProductsUpdateInput,
    output: IdSlug,
    async handler({ slug: s, patch }, ctx) {
      const { before, after } = await updateProduct(ctx.db, s, fieldsToChange(s, patch, 'product'));
      ctx.audit({ entityType: 'product', entityId: before.id, before: productSnapshot(before), after: productSnapshot(after) });
      return { id: after.id, slug: after.slug };
    },
  }),

  defineTool({
    name: 'products.delete',
    title: 'Delete a product',
    description: 'Soft-deletes a product: it disappears from the catalog and keeps its slug reserved. Needs confirm: true.',
    scope: 'products:write',
    kind: 'write',
    destructive: true,
    idempotent: true,
    requiresConfirm: true,
    errors: ['not_found'],
    audit: { reversible: [productEntity] },
    input: z.strictObject({ slug: slugRef() }),
    output: z.object({ ok: z.literal(true), slug: z.string() }),
    async handler({ slug: s }, ctx) {
      const { before, after } = await softDeleteProduct(ctx.db, s);
      ctx.audit({ entityType: 'product', entityId: before.id, before: productSnapshot(before), after: productSnapshot(after) });
      return { ok: true as const, slug: s };
    },
  }),

  defineTool({
    name: 'products.attach_image',
    title: 'Attach an image to a product',
    description:
      'Appends a public https image URL to a product (append-only; attaching the same URL again is a no-op reporting alreadyAttached). No confirm needed. For an images.search_stock result pass its url and sourceId.',
    scope: 'products:write',
    kind: 'write',
    idempotent: true,
    errors: ['not_found', 'invalid_image_url'],
    // Append-only by contract: an attached image is not taken back by audit.revert.
    audit: { appendOnly: ['product'] },
    input: z.strictObject({
      slug: slugRef(),
      imageUrl: z.string().min(1).max(2048).describe('Public https URL or a bundled /assets/images/ path (400 invalid_image_url).'),
      alt: text({ max: 200 }).optional().describe('Alt text; recorded in the audit entry.'),
      sourceId: text({ max: 200 })
        .optional()
        .describe('Identifier at the image source; recorded in the audit entry.'),
    }),
    output: z.union([
      z.object({ ok: z.literal(true), slug: z.string(), alreadyAttached: z.literal(true), totalImages: z.number().int().min(1) }),
      z.object({ ok: z.literal(true), slug: z.string(), attached: z.string(), totalImages: z.number().int().min(1) }),
    ]),
    async handler({ slug: s, imageUrl, alt, sourceId }, ctx) {
      const stock = sourceId === undefined ? null : await stockImageFor(ctx.config, sourceId, imageUrl);
      const outcome = await attachImage(ctx.db, s, imageUrl);
      if (outcome.alreadyAttached) return { ok: true as const, slug: s, alreadyAttached: true as const, totalImages: outcome.totalImages };
      ctx.audit({
        entityType: 'product',
        entityId: outcome.before.id,
        before: productSnapshot(outcome.before),
        after: outcome.after,
        meta: { imageUrl: outcome.url, alt: alt ?? stock?.alt ?? null, sourceId: sourceId ?? null, ...(stock ? stockImageMeta(stock) : {}) },
      });
      if (stock) ctx.afterCommit(() => reportStockImageUse(ctx.config, stock, ctx.log));
      return { ok: true as const, slug: s, attached: outcome.url, totalImages: outcome.totalImages };
    },
  }),

  defineTool({
    name: 'products.set_options',
    title: 'Set a product’s options',
    description:
      'Replaces a product’s options (≤ 3) and makes one variant per combination: matching variants are kept, new ones get the lowest price and stock 0, others are deleted. Preview with dryRun.',
    scope: 'products:write',
    kind: 'write',
    idempotent: true,
    errors: ['not_found', 'invalid_options', 'option_limit_exceeded', 'option_value_limit_exceeded', 'variant_limit_exceeded'],
    audit: { appendOnly: ['variant'] },
    input: z.strictObject({ slug: slugRef(), options: z.array(ProductOption).max(10).describe('[] removes all options, leaving one variant.') }),
    output: z.object({
      slug: z.string(),
      options: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
      created: z.array(Variant),
      removed: z.array(Variant),
      variants: z.array(Variant).describe('The live variants after the change.'),
    }),
    async handler({ slug: s, options }, ctx) {
      const { created, removed, kept, optionsBefore } = await setOptions(ctx.db, s, options);
      for (const v of created) ctx.audit({ entityType: 'variant', entityId: v.id, before: null, after: variantSnapshot(v) });
      for (const { before, after } of [...removed, ...kept.filter((k) => k.before !== k.after)]) {
        ctx.audit({ entityType: 'variant', entityId: before.id, before: variantSnapshot(before), after: variantSnapshot(after) });
      }
      const live = [...kept.map((k) => k.after), ...created].sort((a, b) => a.position - b.position);
      return {
        slug: s,
        options,
        created: created.map((v) => variantView(options, v)),
        removed: removed.map(({ before }) => variantView(optionsBefore, before)),
        variants: live.map((v) => variantView(options, v)),
      };
    },
  }),
];
