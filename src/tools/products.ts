import { z } from 'zod';
import { queryRows, type Tx } from '../db/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { checkImageUrl } from '../domain/image-url.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { containsPattern } from '../domain/like-pattern.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { reviveSnapshot, type ReversibleEntity, type Snapshot } from '../registry/reversible.ts';
import { resolveCategoryId } from './categories.ts';
import { fieldsToChange, httpUrl, immutableSlugPatch, limit, oere, positiveOere, slug, slugRef, stringMap, text, timestamp } from './shared-schemas.ts';

// ---------- schemas ----------

const Faq = z.array(z.strictObject({ q: text({ min: 1, max: 1000 }), a: text({ min: 1, max: 5000 }) })).max(100);
const UseCases = z.array(z.strictObject({ title: text({ min: 1, max: 200 }), description: text({ min: 1, max: 2000 }) })).max(100);

/** Fields shared by create and update (spec §2.1 write constraints). */
const productFields = {
  name: text({ min: 2, max: 200 }),
  description: text({ min: 10, max: 20_000 }),
  priceDkk: positiveOere().describe('Price in øre (1/100 DKK); > 0.'),
  stock: oere().describe('Units in stock; >= 0.'),
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
  images: z.array(httpUrl()).max(50),
};

const f = productFields;

export const ProductsCreateInput = z.strictObject({
  name: f.name,
  slug: slug().describe('Unique; lowercase letters, digits and hyphens; cannot be changed later.'),
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

export const ProductsUpdateInput = z.strictObject({ slug: slugRef(), patch: ProductPatch });
const IdSlug = z.strictObject({ id: z.string(), slug: z.string() });

export const ProductsSearchInput = z.strictObject({
  q: text({ max: 200 }).optional().describe('Matches name, brand and description, case-insensitively and literally.'),
  categorySlug: slugRef().optional(),
  brand: text({ max: 200 }).optional(),
  frameColor: text({ max: 100 }).optional(),
  lensColor: text({ max: 100 }).optional(),
  featured: z.boolean().optional(),
  inStock: z.boolean().optional(),
  minPriceOere: oere().optional(),
  maxPriceOere: oere().optional(),
  limit: limit(20),
});

export const ProductSummary = z.object({
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
});

const CategoryRef = z.object({ slug: z.string(), name: z.string(), description: z.string().nullable() });

export const ProductDetail = z.object({
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
});

// ---------- reads ----------

type SummaryRow = {
  id: string; slug: string; name: string; brand: string | null; priceDkk: bigint | string; stock: bigint | string; featured: boolean;
  frameColor: string | null; lensColor: string | null; categorySlug: string | null; categoryName: string | null; firstImage: string | null;
};

/** Joins the fields of the generated "searchText" column (chr(31) in its SQL). */
const SEARCH_TEXT_SEPARATOR = '\u001f';

/** Hand-written SQL: one indexed query (pg_trgm for q, btree for filters), newest first with id as tie-breaker. */
export async function searchProducts(db: ToolContext['db'], input: z.infer<typeof ProductsSearchInput>) {
  const where: Prisma.Sql[] = [Prisma.sql`p."deletedAt" IS NULL`];
  if (input.q !== undefined && input.q !== '') {
    const pattern = containsPattern(input.q);
    // "searchText" is lower(name) ␟ lower(brand) ␟ lower(description), stored (migration
    // 20261126020000_product_search_text). On a UTF-8 database `x ILIKE p` is `lower(x) LIKE lower(p)`, so this is
    // the per-field ILIKE match at a fifth of the cost per row, and one trigram index serves it. Only a q that
    // contains the separator could match across two fields; the per-field ILIKEs then decide.
    where.push(Prisma.sql`p."searchText" LIKE lower(${pattern})`);
    if (input.q.includes(SEARCH_TEXT_SEPARATOR)) {
      where.push(Prisma.sql`(p.name ILIKE ${pattern} OR p.brand ILIKE ${pattern} OR p.description ILIKE ${pattern})`);
    }
  }
  // The category's id as a one-row subquery (evaluated once), not `c.slug = …` on the join: an equality on
  // p."categoryId" lets PostgreSQL read the newest products of that category straight from an index on
  // ("categoryId", "createdAt", id) and stop after `limit` matches; through the join it must walk all products
  // newest first (~3,200 rows per call in the bench), or fetch and sort the whole category.
  if (input.categorySlug !== undefined) {
    where.push(Prisma.sql`p."categoryId" = (SELECT id FROM "Category" WHERE slug = ${input.categorySlug})`);
  }
  if (input.brand !== undefined) where.push(Prisma.sql`lower(p.brand) = lower(${input.brand})`);
  if (input.frameColor !== undefined) where.push(Prisma.sql`lower(p."frameColor") = lower(${input.frameColor})`);
  if (input.lensColor !== undefined) where.push(Prisma.sql`lower(p."lensColor") = lower(${input.lensColor})`);
  if (input.featured !== undefined) where.push(Prisma.sql`p.featured = ${input.featured}`);
  if (input.inStock === true) where.push(Prisma.sql`p.stock > 0`);
  if (input.inStock === false) where.push(Prisma.sql`p.stock = 0`);
  if (input.minPriceOere !== undefined) where.push(Prisma.sql`p."priceDkk" >= ${BigInt(input.minPriceOere)}`);
  if (input.maxPriceOere !== undefined) where.push(Prisma.sql`p."priceDkk" <= ${BigInt(input.maxPriceOere)}`);

  const rows = await queryRows<SummaryRow>(db, Prisma.sql`
    SELECT p.id, p.slug, p.name, p.brand, p."priceDkk", p.stock, p.featured, p."frameColor", p."lensColor",
           c.slug AS "categorySlug", c.name AS "categoryName", p.images[1] AS "firstImage"
    FROM "Product" p LEFT JOIN "Category" c ON c.id = p."categoryId"
    WHERE ${Prisma.join(where, ' AND ')}
    ORDER BY p."createdAt" DESC, p.id DESC
    LIMIT ${input.limit}`,
  // Unfiltered, the plan is always the newest-first index walk; with filters it depends on their values.
  { prepareAs: where.length === 1 ? 'products_search_unfiltered' : undefined });
  return rows.map((r) => ({
    ...r,
    priceDkk: Number(r.priceDkk),
    stock: Number(r.stock),
    categorySlug: r.categorySlug ?? '',
    categoryName: r.categoryName ?? '',
  }));
}

type DetailRow = {
  id: string; slug: string; name: string; brand: string | null; description: string; priceDkk: bigint | string; stock: bigint | string; featured: boolean;
  frameColor: string | null; lensColor: string | null; images: string[] | null; createdAt: Date;
  categorySlug: string | null; categoryName: string | null; categoryDescription: string | null;
};

/**
 * One query with the category joined. Prisma's `findFirst` with a nested `category` select sends two queries
 * (the product, then its category by id): with it products.get ran at ~0.2 × the hand-written baseline.
 */
export async function getProduct(db: ToolContext['db'], slugValue: string) {
  const [p] = await queryRows<DetailRow>(db, Prisma.sql`
    SELECT p.id, p.slug, p.name, p.brand, p.description, p."priceDkk", p.stock, p.featured, p."frameColor", p."lensColor",
           p.images, p."createdAt", c.slug AS "categorySlug", c.name AS "categoryName", c.description AS "categoryDescription"
    FROM "Product" p LEFT JOIN "Category" c ON c.id = p."categoryId"
    WHERE p.slug = ${slugValue} AND p."deletedAt" IS NULL`, { prepareAs: 'products_get' });
  if (!p) throw new AppError('not_found', `No product with slug "${slugValue}".`);
  return {
    id: p.id,
    slug: p.slug,
    name: p.name,
    brand: p.brand,
    description: p.description,
    priceDkk: Number(p.priceDkk),
    stock: Number(p.stock),
    featured: p.featured,
    frameColor: p.frameColor,
    lensColor: p.lensColor,
    images: p.images ?? [],
    // Live products always have a category (writes fall back to "uncategorized"); the empty one is only a guard.
    category: p.categorySlug === null ? { slug: '', name: '', description: null } : { slug: p.categorySlug, name: p.categoryName ?? '', description: p.categoryDescription },
    createdAt: p.createdAt.toISOString(),
  };
}

async function findLiveProduct(db: ToolContext['db'], slugValue: string) {
  const product = await db.product.findFirst({ where: { slug: slugValue, deletedAt: null } });
  if (!product) throw new AppError('not_found', `No product with slug "${slugValue}".`);
  return product;
}

// ---------- audit snapshots ----------

const BIGINT_FIELDS = ['priceDkk', 'stock'] as const;
const DATE_FIELDS = ['createdAt', 'updatedAt', 'deletedAt'] as const;

async function loadSnapshot(db: ToolContext['db'], id: string): Promise<Snapshot | null> {
  const row = await db.product.findUnique({ where: { id } });
  return row ? (plainJson(row) as Snapshot) : null;
}

export const productEntity: ReversibleEntity = {
  entityType: 'product',
  // attach_image is append-only by contract, so it is deliberately not reversible.
  tools: ['products.update', 'products.delete'],
  load: loadSnapshot,
  async restore(tx: Tx, id, snapshot) {
    if (snapshot === null) {
      await tx.product.update({ where: { id }, data: { deletedAt: new Date() } });
      return;
    }
    const data = reviveSnapshot(snapshot, { bigint: BIGINT_FIELDS, date: DATE_FIELDS, omit: ['id', 'updatedAt'] });
    // The category may have been deleted since; a restored product then lands in the fallback category.
    if (typeof data.categoryId === 'string' && !(await tx.category.findUnique({ where: { id: data.categoryId }, select: { id: true } }))) {
      data.categoryId = await resolveCategoryId(tx, {});
    }
    await tx.product.update({ where: { id }, data: jsonColumns(data) as Prisma.ProductUncheckedUpdateInput });
  },
};

/** Json columns take Prisma.DbNull rather than null. */
function jsonColumns<T extends Record<string, unknown>>(data: T): T {
  const out: Record<string, unknown> = { ...data };
  for (const k of ['attributes', 'faq', 'useCases', 'comparisonFacts']) if (k in out && out[k] === null) out[k] = Prisma.DbNull;
  return out as T;
}

// ---------- tools ----------

export const productTools = [
  defineTool({
    name: 'products.search',
    title: 'Search products',
    description: 'Searches the live catalog. All filters are optional and combined with AND; results are newest first. Amounts are in øre.',
    scope: 'catalog:read',
    anonymous: true,
    input: ProductsSearchInput,
    output: z.array(ProductSummary),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: (input, ctx) => searchProducts(ctx.db, input),
  }),

  defineTool({
    name: 'products.get',
    title: 'Get a product',
    description: 'Returns one live product by slug, with its category. Soft-deleted products are not found.',
    scope: 'catalog:read',
    anonymous: true,
    input: z.strictObject({ slug: slugRef() }),
    output: ProductDetail,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: ({ slug: s }, ctx) => getProduct(ctx.db, s),
  }),

  defineTool({
    name: 'products.create',
    title: 'Create a product',
    description: 'Creates a product. The slug is unique (also against soft-deleted products) and cannot be changed later. Without categoryId/categorySlug the product goes to the "uncategorized" category.',
    scope: 'products:write',
    input: ProductsCreateInput,
    output: IdSlug,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async handler(input, ctx) {
      const { categoryId, categorySlug, priceDkk, stock, ...rest } = input;
      if (await ctx.db.product.findUnique({ where: { slug: input.slug }, select: { id: true } })) {
        throw new AppError('conflict', `The slug "${input.slug}" is already taken.`);
      }
      const created = await ctx.db.product.create({
        data: {
          ...rest,
          priceDkk: BigInt(priceDkk),
          stock: BigInt(stock),
          categoryId: await resolveCategoryId(ctx.db, { categoryId, categorySlug }),
        },
      });
      ctx.audit({ entityType: 'product', entityId: created.id, before: null, after: plainJson(created) });
      return { id: created.id, slug: created.slug };
    },
  }),

  defineTool({
    name: 'products.update',
    title: 'Update a product',
    description: 'Applies a partial update to a live product. Fields left out of patch are unchanged. The slug cannot be changed (422 slug_immutable). Reversible with audit.revert.',
    scope: 'products:write',
    input: ProductsUpdateInput,
    output: IdSlug,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    async handler({ slug: s, patch }, ctx) {
      const { categoryId, categorySlug, priceDkk, stock, ...rest } = fieldsToChange(s, patch, 'product');
      const current = await findLiveProduct(ctx.db, s);
      const data: Prisma.ProductUncheckedUpdateInput = jsonColumns({ ...rest });
      if (priceDkk !== undefined) data.priceDkk = BigInt(priceDkk);
      if (stock !== undefined) data.stock = BigInt(stock);
      if (categoryId !== undefined || categorySlug !== undefined) {
        data.categoryId = await resolveCategoryId(ctx.db, { categoryId, categorySlug });
      }
      const updated = await ctx.db.product.update({ where: { id: current.id }, data });
      ctx.audit({ entityType: 'product', entityId: current.id, before: plainJson(current), after: plainJson(updated) });
      return { id: updated.id, slug: updated.slug };
    },
  }),

  defineTool({
    name: 'products.delete',
    title: 'Delete a product',
    description: 'Soft-deletes a product: it disappears from the catalog, keeps its slug reserved, and can be restored with audit.revert. Needs confirm: true.',
    scope: 'products:write',
    requiresConfirm: true,
    input: z.strictObject({ slug: slugRef() }),
    output: z.object({ ok: z.literal(true), slug: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    async handler({ slug: s }, ctx) {
      const current = await findLiveProduct(ctx.db, s);
      // Conditional on still being live: of two concurrent deletes only one succeeds (and writes an audit entry).
      const { count } = await ctx.db.product.updateMany({ where: { id: current.id, deletedAt: null }, data: { deletedAt: new Date() } });
      if (count === 0) throw new AppError('not_found', `No product with slug "${s}".`);
      const deleted = await ctx.db.product.findUniqueOrThrow({ where: { id: current.id } });
      ctx.audit({ entityType: 'product', entityId: current.id, before: plainJson(current), after: plainJson(deleted) });
      return { ok: true as const, slug: s };
    },
  }),

  defineTool({
    name: 'products.attach_image',
    title: 'Attach an image to a product',
    description: 'Appends a public https image URL to a product (append-only; attaching the same URL again is a no-op reporting alreadyAttached). No confirm needed.',
    scope: 'products:write',
    input: z.strictObject({
      slug: slugRef(),
      imageUrl: z.string().max(2048).describe('Public https URL; no credentials, no IP addresses.'),
      alt: text({ max: 200 }).optional().describe('Alt text; recorded in the audit entry.'),
      sourceId: text({ max: 200 }).optional().describe('Identifier at the image source (e.g. a stock photo id); recorded in the audit entry.'),
    }),
    output: z.union([
      z.object({ ok: z.literal(true), slug: z.string(), alreadyAttached: z.literal(true), totalImages: z.number().int().min(1) }),
      z.object({ ok: z.literal(true), slug: z.string(), attached: z.string(), totalImages: z.number().int().min(1) }),
    ]),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    async handler({ slug: s, imageUrl, alt, sourceId }, ctx) {
      const checked = checkImageUrl(imageUrl);
      if (!checked.ok) throw new AppError('invalid_image_url', `imageUrl ${checked.reason}.`);
      const current = await findLiveProduct(ctx.db, s);
      if (current.images.includes(checked.url)) {
        return { ok: true as const, slug: s, alreadyAttached: true as const, totalImages: current.images.length };
      }
      // array_append in SQL keeps concurrent attaches from overwriting each other.
      const [updated] = await ctx.db.$queryRaw<{ images: string[] }[]>`
        UPDATE "Product" SET images = array_append(images, ${checked.url}), "updatedAt" = now()
        WHERE id = ${current.id} AND NOT (${checked.url} = ANY(images)) RETURNING images`;
      if (!updated) {
        const again = await findLiveProduct(ctx.db, s);
        return { ok: true as const, slug: s, alreadyAttached: true as const, totalImages: again.images.length };
      }
      ctx.audit({
        entityType: 'product',
        entityId: current.id,
        before: plainJson(current),
        after: await loadSnapshot(ctx.db, current.id),
        meta: { imageUrl: checked.url, alt: alt ?? null, sourceId: sourceId ?? null },
      });
      return { ok: true as const, slug: s, attached: checked.url, totalImages: updated.images.length };
    },
  }),
];
