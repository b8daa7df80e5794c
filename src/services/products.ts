import { queryRows, type DbClient, type Tx } from '../db/client.ts';
import { rowCount } from '../db/sql-literal.ts';
import { checkImageUrl } from '../domain/image-url.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { containsPattern } from '../domain/like-pattern.ts';
import { reviveSnapshot, type Snapshot } from '../domain/revert.ts';
import type { ProductOptionInput } from '../domain/variants.ts';
import { AppError, hasSqlState } from '../errors.ts';
import { Prisma, type Product } from '../generated/prisma/client.ts';
import { resolveCategoryId } from './categories.ts';
import type { ReversibleEntity } from './reversible.ts';
import { variantView } from './variants.ts';

export type ProductSearch = {
  q?: string; categorySlug?: string; brand?: string; frameColor?: string; lensColor?: string; featured?: boolean;
  inStock?: boolean; minPriceOere?: number; maxPriceOere?: number; optionValue?: string; limit: number;
};

type SummaryRow = { createdAt: Date;
  id: string; slug: string; name: string; brand: string | null; priceDkk: bigint | string; stock: bigint | string; featured: boolean;
  frameColor: string | null; lensColor: string | null; categorySlug: string | null; categoryName: string | null; firstImage: string | null;
  variantCount: bigint | string; maxPriceDkk: bigint | string | null;
};

/** Joins the fields of the generated "searchText" column (chr(31) in its SQL). */
const SEARCH_TEXT_SEPARATOR = '\u001f';

/** Hand-written SQL: one indexed query (pg_trgm for q, btree for filters), newest first with id as tie-breaker. */
export async function searchProducts(db: DbClient, input: ProductSearch) {
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
  if (input.optionValue === undefined) {
    // The product's derived columns: stock is the total of its variants, priceDkk the lowest price (docs/catalog.md).
    if (input.inStock === true) where.push(Prisma.sql`p.stock > 0`);
    if (input.inStock === false) where.push(Prisma.sql`p.stock = 0`);
    if (input.minPriceOere !== undefined) where.push(Prisma.sql`p."priceDkk" >= ${BigInt(input.minPriceOere)}`);
    if (input.maxPriceOere !== undefined) where.push(Prisma.sql`p."priceDkk" <= ${BigInt(input.maxPriceOere)}`);
  } else {
    where.push(variantMatch(input.optionValue, input));
  }

  // The variants' count and highest price only for the page's rows, after the limit.
  const rows = await queryRows<SummaryRow>(db, Prisma.sql`
    SELECT s.*, vs."variantCount", vs."maxPriceDkk" FROM (
      SELECT p.id, p.slug, p.name, p.brand, p."priceDkk", p.stock, p.featured, p."frameColor", p."lensColor",
             c.slug AS "categorySlug", c.name AS "categoryName", p.images[1] AS "firstImage", p."createdAt"
      FROM "Product" p LEFT JOIN "Category" c ON c.id = p."categoryId"
      WHERE ${Prisma.join(where, ' AND ')}
      ORDER BY p."createdAt" DESC, p.id DESC
      LIMIT ${rowCount(input.limit)}) s
    CROSS JOIN LATERAL (SELECT count(*) AS "variantCount", max(v."priceDkk") AS "maxPriceDkk"
                        FROM "ProductVariant" v WHERE v."productId" = s.id AND v."deletedAt" IS NULL) vs
    ORDER BY s."createdAt" DESC, s.id DESC`,
  // Unfiltered, the plan is always the newest-first index walk; with filters it depends on their values. One
  // statement per limit (1 to 100), since the limit is part of the text.
  { prepareAs: where.length === 1 ? `products_search_unfiltered_${input.limit}` : undefined });
  return rows.map(({ createdAt: _createdAt, ...r }) => ({
    ...r,
    priceDkk: Number(r.priceDkk),
    stock: Number(r.stock),
    categorySlug: r.categorySlug ?? '',
    categoryName: r.categoryName ?? '',
    variantCount: Number(r.variantCount),
    maxPriceDkk: Number(r.maxPriceDkk ?? r.priceDkk),
  }));
}

/**
 * With an option value, the price and stock filters apply to the variant that has it: a product matches when one
 * live variant has the value (case-insensitively, of any option), a price in the range and, for inStock, can be
 * bought now (inStock false: no such variant can).
 */
function variantMatch(optionValue: string, input: ProductSearch): Prisma.Sql {
  const on = [Prisma.sql`v."productId" = p.id`, Prisma.sql`v."deletedAt" IS NULL`,
    Prisma.sql`EXISTS (SELECT FROM unnest(v."optionValues") o WHERE lower(o) = lower(${optionValue}))`];
  if (input.minPriceOere !== undefined) on.push(Prisma.sql`v."priceDkk" >= ${BigInt(input.minPriceOere)}`);
  if (input.maxPriceOere !== undefined) on.push(Prisma.sql`v."priceDkk" <= ${BigInt(input.maxPriceOere)}`);
  const available = Prisma.sql`(v.stock > 0 OR NOT v."trackStock" OR v."allowBackorder")`;
  if (input.inStock === true) on.push(available);
  const match = Prisma.sql`EXISTS (SELECT FROM "ProductVariant" v WHERE ${Prisma.join(on, ' AND ')})`;
  return input.inStock === false ? Prisma.sql`(${match} AND NOT EXISTS (SELECT FROM "ProductVariant" v WHERE ${Prisma.join([...on, available], ' AND ')}))` : match;
}

type VariantJson = Parameters<typeof variantView>[1];

type DetailRow = {
  id: string; slug: string; name: string; brand: string | null; description: string; priceDkk: bigint | string; stock: bigint | string; featured: boolean;
  frameColor: string | null; lensColor: string | null; images: string[] | null; createdAt: Date;
  categorySlug: string | null; categoryName: string | null; categoryDescription: string | null;
  options: ProductOptionInput[]; variants: VariantJson[];
};

/**
 * One query with the category joined. Prisma's `findFirst` with a nested `category` select sends two queries
 * (the product, then its category by id): with it products.get ran at ~0.2 × the hand-written baseline.
 */
export async function getProduct(db: DbClient, slugValue: string) {
  const [p] = await queryRows<DetailRow>(db, Prisma.sql`
    SELECT p.id, p.slug, p.name, p.brand, p.description, p."priceDkk", p.stock, p.featured, p."frameColor", p."lensColor",
           p.images, p."createdAt", c.slug AS "categorySlug", c.name AS "categoryName", c.description AS "categoryDescription",
           coalesce((SELECT json_agg(json_build_object('name', o.name, 'values', o."values") ORDER BY o.position)
                     FROM "ProductOption" o WHERE o."productId" = p.id), '[]') AS options,
           (SELECT json_agg(json_build_object('id', v.id, 'sku', v.sku, 'optionValues', v."optionValues", 'priceDkk', v."priceDkk",
                                              'compareAtPriceDkk', v."compareAtPriceDkk", 'stock', v.stock, 'trackStock', v."trackStock",
                                              'allowBackorder', v."allowBackorder", 'position', v.position, 'images', v.images)
                            ORDER BY v.position, v.id)
            FROM "ProductVariant" v WHERE v."productId" = p.id AND v."deletedAt" IS NULL) AS variants
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
    options: p.options,
    variants: (p.variants ?? []).map((v) => variantView(p.options, v)),
  };
}

async function findLiveProduct(db: DbClient, slugValue: string): Promise<Product> {
  const product = await db.product.findFirst({ where: { slug: slugValue, deletedAt: null } });
  if (!product) throw new AppError('not_found', `No product with slug "${slugValue}".`);
  return product;
}

/** The writable fields, as the API gives them (amounts as numbers); the category by id or slug. */
export type ProductFields = Omit<Prisma.ProductUncheckedCreateInput, 'id' | 'slug' | 'priceDkk' | 'stock' | 'categoryId'> & {
  priceDkk: number; stock: number; categoryId?: string; categorySlug?: string;
};

export async function createProduct(tx: Tx, input: ProductFields & { slug: string }): Promise<Product> {
  const { categoryId, categorySlug, priceDkk, stock, ...rest } = input;
  if (await tx.product.findUnique({ where: { slug: input.slug }, select: { id: true } })) {
    throw new AppError('conflict', `The slug "${input.slug}" is already taken.`);
  }
  return tx.product.create({
    data: { ...rest, priceDkk: BigInt(priceDkk), stock: BigInt(stock), categoryId: await resolveCategoryId(tx, { categoryId, categorySlug }) },
  });
}

/** The columns of a product row as Prisma's Product type has them, in its order (never the generated "searchText"). */
const PRODUCT_COLUMNS = [
  'id', 'slug', 'name', 'description', 'brand', 'priceDkk', 'stock', 'featured', 'frameColor', 'lensColor', 'images', 'categoryId',
  'attributes', 'answerSummary', 'faq', 'useCases', 'comparisonFacts', 'createdAt', 'updatedAt', 'deletedAt',
] as const satisfies readonly (keyof Product)[];

/** The SQL type of each column products.update may set (the category resolved to its id). */
const PATCH_TYPES: Partial<Record<keyof ProductFields, string>> = {
  name: 'text', description: 'text', brand: 'text', frameColor: 'text', lensColor: 'text', answerSummary: 'text',
  priceDkk: 'bigint', stock: 'bigint', featured: 'boolean', images: 'text[]', categoryId: 'text',
  attributes: 'jsonb', faq: 'jsonb', useCases: 'jsonb', comparisonFacts: 'jsonb',
};

const quoted = (column: string) => `"${column}"`;
const columnsOf = (alias: string, prefix: string) =>
  Prisma.raw(PRODUCT_COLUMNS.map((c) => `${alias}.${quoted(c)} AS ${quoted(prefix + c)}`).join(', '));
const productOf = (row: Record<string, unknown>, prefix: string) =>
  Object.fromEntries(PRODUCT_COLUMNS.map((c) => [c, row[prefix + c]])) as Product;

/**
 * One prepared statement per set of patched columns (the plan is always the slug's index), named by a counter:
 * PostgreSQL cuts statement names at 63 bytes, too short for the column list itself. The first 32 sets seen are
 * prepared (a handful in practice); any further set runs unnamed, so no caller can grow every connection without end.
 */
const updateStatements = new Map<string, string>();
const updateStatementName = (columns: string): string | undefined => {
  let name = updateStatements.get(columns);
  if (!name && updateStatements.size < 32) updateStatements.set(columns, (name = `product_update_${updateStatements.size + 1}`));
  return name;
};

/**
 * What the database raises when a product's priceDkk or stock is written while it has several live variants: they are
 * derived from the variants then (migration 20261129150000_product_variants).
 */
const SEVERAL_VARIANTS = 'AV001';
const severalVariants = (slugValue: string) =>
  new AppError('variant_required', `Product "${slugValue}" has several variants: its priceDkk and stock are their lowest price and total stock. Change a variant's with variants.update or variants.adjust_stock.`);

/**
 * One statement: the live product is locked by slug (the sub-select's FOR UPDATE), changed, and returned as it was
 * and as it is now — the audit entry's before and after — instead of a read, an update and Prisma's re-read.
 */
export async function updateProduct(tx: Tx, slugValue: string, patch: Partial<ProductFields>) {
  const { categoryId, categorySlug, ...fields } = patch;
  const values: Record<string, unknown> = { ...fields };
  if (categoryId !== undefined || categorySlug !== undefined) values.categoryId = await resolveCategoryId(tx, { categoryId, categorySlug });
  const sets = Object.entries(values).sort(([a], [b]) => (a < b ? -1 : 1)).flatMap(([column, value]) => {
    if (value === undefined) return [];
    const type = PATCH_TYPES[column as keyof ProductFields];
    if (type === undefined) throw new Error(`updateProduct cannot set ${column}: give it a type in PATCH_TYPES`);
    const param = type === 'jsonb' ? (value === null ? null : JSON.stringify(value)) : value;
    return [Prisma.sql`${Prisma.raw(quoted(column))} = ${param}::${Prisma.raw(type)}`];
  });
  const [row] = await queryRows<Record<string, unknown>>(tx, Prisma.sql`
    UPDATE "Product" p SET ${Prisma.join([...sets, Prisma.sql`"updatedAt" = ${new Date()}`], ', ')}
    FROM (SELECT * FROM "Product" WHERE slug = ${slugValue} AND "deletedAt" IS NULL FOR UPDATE) old
    WHERE p.id = old.id
    RETURNING ${columnsOf('old', 'b_')}, ${columnsOf('p', 'a_')}`,
  { prepareAs: updateStatementName(Object.keys(values).filter((k) => values[k] !== undefined).sort().join(',')) }).catch((err: unknown) => {
    throw hasSqlState(err, SEVERAL_VARIANTS) ? severalVariants(slugValue) : err;
  });
  if (!row) throw new AppError('not_found', `No product with slug "${slugValue}".`);
  return { before: productOf(row, 'b_'), after: productOf(row, 'a_') };
}

export async function softDeleteProduct(tx: Tx, slugValue: string) {
  const before = await findLiveProduct(tx, slugValue);
  // Conditional on still being live: of two concurrent deletes only one succeeds (and writes an audit entry).
  const { count } = await tx.product.updateMany({ where: { id: before.id, deletedAt: null }, data: { deletedAt: new Date() } });
  if (count === 0) throw new AppError('not_found', `No product with slug "${slugValue}".`);
  const after = await tx.product.findUniqueOrThrow({ where: { id: before.id } });
  return { before, after };
}

export type AttachOutcome =
  | { alreadyAttached: true; totalImages: number }
  | { alreadyAttached: false; url: string; totalImages: number; before: Product; after: Snapshot | null };

/** Appends a checked image URL to a live product, once. */
export async function attachImage(tx: Tx, slugValue: string, imageUrl: string): Promise<AttachOutcome> {
  const checked = checkImageUrl(imageUrl);
  if (!checked.ok) throw new AppError('invalid_image_url', `imageUrl ${checked.reason}.`);
  const before = await findLiveProduct(tx, slugValue);
  if (before.images.includes(checked.url)) return { alreadyAttached: true, totalImages: before.images.length };
  // array_append in SQL keeps concurrent attaches from overwriting each other.
  const [updated] = await tx.$queryRaw<{ images: string[] }[]>`
    UPDATE "Product" SET images = array_append(images, ${checked.url}), "updatedAt" = now()
    WHERE id = ${before.id} AND NOT (${checked.url} = ANY(images)) RETURNING images`;
  if (!updated) return { alreadyAttached: true, totalImages: (await findLiveProduct(tx, slugValue)).images.length };
  return { alreadyAttached: false, url: checked.url, totalImages: updated.images.length, before, after: await productEntity.load(tx, before.id) };
}

export const productSnapshot = (row: Product): Snapshot => plainJson(row);

const BIGINT_FIELDS = ['priceDkk', 'stock'] as const;
const DATE_FIELDS = ['createdAt', 'updatedAt', 'deletedAt'] as const;

export const productEntity: ReversibleEntity = {
  entityType: 'product',
  async load(db, id) {
    const row = await db.product.findUnique({ where: { id } });
    return row ? productSnapshot(row) : null;
  },
  async restore(tx, id, snapshot) {
    if (snapshot === null) {
      await tx.product.update({ where: { id }, data: { deletedAt: new Date() } });
      return;
    }
    // With several variants the product's price and stock are theirs (derived); a revert restores the product's own fields.
    const variants = await tx.productVariant.count({ where: { productId: id, deletedAt: null } });
    const data = reviveSnapshot(snapshot, { bigint: BIGINT_FIELDS, date: DATE_FIELDS, omit: ['id', 'updatedAt', ...(variants > 1 ? BIGINT_FIELDS : [])] });
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
