import { queryRows, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { reviveSnapshot, type Snapshot } from '../domain/revert.ts';
import {
  checkOptions, combinationKey, combinations, orderedValues, planVariants, valuesByName, VARIANT_LIMITS, type ProductOptionInput,
} from '../domain/variants.ts';
import { AppError } from '../errors.ts';
import { Prisma, type ProductVariant } from '../generated/prisma/client.ts';
import type { ReversibleEntity } from './reversible.ts';

/** A variant's writable fields as the API gives them: option values by option name, amounts as numbers. */
export type VariantFields = {
  options?: Record<string, string>; sku?: string | null; priceDkk?: number; compareAtPriceDkk?: number | null; stock?: number;
  trackStock?: boolean; allowBackorder?: boolean; images?: string[];
};

/** A live product, locked, with what variant writes check against. */
type LockedProduct = { id: string; slug: string; priceDkk: bigint; images: string[]; options: ProductOptionInput[] };

/**
 * Locks the live product (by slug, or the one a live variant belongs to) for the rest of the write. Every variant
 * write locks its product first, the order products.update (whose trigger writes the variant) and a checkout take
 * them in too, so two writes never wait on each other's second lock.
 */
async function lockProduct(tx: Tx, by: { slug: string } | { variantId: string }): Promise<LockedProduct> {
  const where = 'slug' in by
    ? Prisma.sql`p.slug = ${by.slug}`
    : Prisma.sql`p.id = (SELECT "productId" FROM "ProductVariant" WHERE id = ${by.variantId} AND "deletedAt" IS NULL)`;
  const [row] = await queryRows<LockedProduct>(tx, Prisma.sql`
    SELECT p.id, p.slug, p."priceDkk", p.images,
           coalesce((SELECT json_agg(json_build_object('name', o.name, 'values', o."values") ORDER BY o.position)
                     FROM "ProductOption" o WHERE o."productId" = p.id), '[]') AS options
    FROM "Product" p WHERE ${where} AND p."deletedAt" IS NULL FOR NO KEY UPDATE OF p`);
  if (!row) throw new AppError('not_found', 'slug' in by ? `No product with slug "${by.slug}".` : `No variant with id "${by.variantId}".`);
  return { ...row, priceDkk: BigInt(row.priceDkk), images: row.images ?? [] };
}

const liveVariants = (tx: Tx, productId: string) =>
  tx.productVariant.findMany({ where: { productId, deletedAt: null }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });

export const variantSnapshot = (row: ProductVariant): Snapshot => plainJson(row);

type VariantColumns = Pick<ProductVariant, 'id' | 'sku' | 'optionValues' | 'trackStock' | 'allowBackorder' | 'position' | 'images'> & {
  priceDkk: bigint | number; compareAtPriceDkk: bigint | number | null; stock: bigint | number;
};

/** A variant as the API shows it: its option values by name, and whether it can be bought now. */
export function variantView(options: readonly ProductOptionInput[], v: VariantColumns) {
  return {
    id: v.id,
    sku: v.sku,
    options: valuesByName(options, v.optionValues),
    priceDkk: Number(v.priceDkk),
    compareAtPriceDkk: v.compareAtPriceDkk === null ? null : Number(v.compareAtPriceDkk),
    stock: Number(v.stock),
    trackStock: v.trackStock,
    allowBackorder: v.allowBackorder,
    available: isAvailable(v),
    position: v.position,
    images: v.images,
  };
}

/** In stock, sold on backorder, or with untracked stock. */
export const isAvailable = (v: Pick<VariantColumns, 'stock' | 'trackStock' | 'allowBackorder'>) => !v.trackStock || v.allowBackorder || Number(v.stock) > 0;

function checkImages(product: LockedProduct, images: readonly string[] | undefined) {
  const unknown = images?.find((url) => !product.images.includes(url));
  if (unknown !== undefined) throw new AppError('variant_image_unknown', `images: "${unknown}" is not an image of product "${product.slug}".`);
}

async function checkSkuFree(tx: Tx, sku: string | null | undefined, except: string | null) {
  if (sku === undefined || sku === null) return;
  const taken = await tx.productVariant.findFirst({ where: { sku, deletedAt: null, ...(except ? { id: { not: except } } : {}) }, select: { id: true } });
  if (taken) throw new AppError('conflict', `The SKU "${sku}" is already used by variant ${taken.id}.`);
}

function checkCombinationFree(variants: readonly ProductVariant[], values: readonly string[], except: string | null) {
  const same = variants.find((v) => v.id !== except && combinationKey(v.optionValues) === combinationKey(values));
  if (same) throw new AppError('conflict', `Variant ${same.id} already has these option values; change it with variants.update.`);
}

/** Column values of a variant write, from the API's fields (option values already ordered). */
function columns(fields: Omit<VariantFields, 'options'>) {
  const { priceDkk, compareAtPriceDkk, stock, ...rest } = fields;
  return {
    ...rest,
    ...(priceDkk === undefined ? {} : { priceDkk: BigInt(priceDkk) }),
    ...(compareAtPriceDkk === undefined ? {} : { compareAtPriceDkk: compareAtPriceDkk === null ? null : BigInt(compareAtPriceDkk) }),
    ...(stock === undefined ? {} : { stock: BigInt(stock) }),
  };
}

export async function createVariant(tx: Tx, productSlug: string, fields: VariantFields & { priceDkk: number }) {
  const product = await lockProduct(tx, { slug: productSlug });
  const variants = await liveVariants(tx, product.id);
  if (variants.length >= VARIANT_LIMITS.variants) {
    throw new AppError('variant_limit_exceeded', `Product "${productSlug}" already has ${variants.length} variants, the most a product can have.`);
  }
  const { options, ...rest } = fields;
  const values = orderedValues(product.options, options ?? {});
  checkCombinationFree(variants, values, null);
  checkImages(product, fields.images);
  await checkSkuFree(tx, fields.sku, null);
  const position = Math.max(-1, ...variants.map((v) => v.position)) + 1;
  const created = await tx.productVariant.create({
    data: { id: newId(), productId: product.id, optionValues: values, stock: 0n, ...columns(rest), priceDkk: BigInt(fields.priceDkk), position },
  });
  return { product, variant: created };
}

export async function updateVariant(tx: Tx, variantId: string, patch: VariantFields) {
  const product = await lockProduct(tx, { variantId });
  const variants = await liveVariants(tx, product.id);
  const before = variants.find((v) => v.id === variantId)!;
  const { options, ...rest } = patch;
  const values = options === undefined ? undefined : orderedValues(product.options, options);
  if (values) checkCombinationFree(variants, values, variantId);
  checkImages(product, patch.images);
  await checkSkuFree(tx, patch.sku, variantId);
  if (patch.allowBackorder === false && (patch.stock === undefined ? before.stock < 0n : false)) {
    throw new AppError('value_out_of_range', `allowBackorder: variant ${variantId} has ${before.stock} in stock (owes units); set stock to 0 or more in the same patch.`);
  }
  const after = await tx.productVariant.update({ where: { id: variantId }, data: { ...columns(rest), ...(values ? { optionValues: values } : {}) } });
  return { product, before, after };
}

/**
 * Soft-deletes a variant: it leaves products.get and search, its SKU is free again, and the orders that sold it keep
 * naming it. Carts holding it keep the line, shown unavailable; their checkout answers out_of_stock until the line
 * is removed (the rule for a deleted product).
 */
export async function deleteVariant(tx: Tx, variantId: string) {
  const product = await lockProduct(tx, { variantId });
  const variants = await liveVariants(tx, product.id);
  if (variants.length === 1) throw new AppError('last_variant', `Variant ${variantId} is the only one of product "${product.slug}".`);
  const before = variants.find((v) => v.id === variantId)!;
  const after = await tx.productVariant.update({ where: { id: variantId }, data: { deletedAt: new Date() } });
  return { product, before, after };
}

/** Adds a signed number of units in one conditional UPDATE: stock goes below zero only on backorder. */
export async function adjustVariantStock(tx: Tx, variantId: string, delta: number) {
  const product = await lockProduct(tx, { variantId });
  const before = await tx.productVariant.findUniqueOrThrow({ where: { id: variantId } });
  const { count } = await tx.productVariant.updateMany({
    where: { id: variantId, OR: [{ allowBackorder: true }, { stock: { gte: BigInt(-delta) } }] },
    data: { stock: { increment: BigInt(delta) } },
  });
  if (count === 0) throw new AppError('value_out_of_range', `delta: variant ${variantId} has ${before.stock} in stock and is not sold on backorder; the lowest delta is ${-before.stock}.`);
  return { product, before, after: await tx.productVariant.findUniqueOrThrow({ where: { id: variantId } }) };
}

/** A product's options and live variants, as products.set_options and products.get show them. */
export async function productVariants(tx: Tx, productSlug: string) {
  const product = await lockProduct(tx, { slug: productSlug });
  return { product, variants: await liveVariants(tx, product.id) };
}

/**
 * Replaces a product's options and brings its variants in line (planVariants): existing variants keep their id,
 * price and stock; combinations without a variant are created at the product's current (lowest) price with stock 0;
 * variants that fit no combination are soft-deleted. Positions follow the combinations' order.
 */
export async function setOptions(tx: Tx, productSlug: string, next: ProductOptionInput[]) {
  checkOptions(next);
  const product = await lockProduct(tx, { slug: productSlug });
  const variants = await liveVariants(tx, product.id);
  const plan = planVariants(product.options, next, variants);
  const order = new Map(combinations(next).map((values, i) => [combinationKey(values), i]));
  const positionOf = (values: readonly string[]) => order.get(combinationKey(values)) ?? 0;
  const now = new Date();

  await tx.productOption.deleteMany({ where: { productId: product.id } });
  await tx.productOption.createMany({ data: next.map((o, position) => ({ id: newId(), productId: product.id, position, name: o.name, values: o.values })) });
  const removed = plan.remove.length === 0
    ? []
    : await tx.productVariant.updateManyAndReturn({ where: { id: { in: plan.remove } }, data: { deletedAt: now } });
  const kept = await Promise.all(plan.keep.map(async (k) => {
    const before = variants.find((v) => v.id === k.id)!;
    const position = positionOf(k.optionValues);
    const unchanged = combinationKey(before.optionValues) === combinationKey(k.optionValues) && before.position === position;
    return { before, after: unchanged ? before : await tx.productVariant.update({ where: { id: k.id }, data: { optionValues: k.optionValues, position } }) };
  }));
  const created = await tx.productVariant.createManyAndReturn({
    data: plan.create.map((values) => ({ id: newId(), productId: product.id, optionValues: values, priceDkk: product.priceDkk, stock: 0n, position: positionOf(values) })),
  });
  return {
    product,
    optionsBefore: product.options,
    removed: removed.map((after) => ({ before: variants.find((v) => v.id === after.id)!, after })),
    kept,
    created,
  };
}

const BIGINT_FIELDS = ['priceDkk', 'compareAtPriceDkk', 'stock'] as const;
const DATE_FIELDS = ['createdAt', 'updatedAt', 'deletedAt'] as const;

export const variantEntity: ReversibleEntity = {
  entityType: 'variant',
  async load(db, id) {
    const row = await db.productVariant.findUnique({ where: { id } });
    return row ? variantSnapshot(row) : null;
  },
  async restore(tx, id, snapshot) {
    const row = await tx.productVariant.findUnique({ where: { id }, select: { productId: true } });
    if (!row) throw new AppError('not_found', `No variant with id "${id}".`);
    await tx.$queryRaw`SELECT id FROM "Product" WHERE id = ${row.productId} FOR NO KEY UPDATE`;
    if (snapshot === null) {
      await tx.productVariant.update({ where: { id }, data: { deletedAt: new Date() } });
      return;
    }
    const data = reviveSnapshot(snapshot, { bigint: BIGINT_FIELDS, date: DATE_FIELDS, omit: ['id', 'productId', 'updatedAt'] });
    if (data.deletedAt === null) {
      await checkSkuFree(tx, typeof data.sku === 'string' ? data.sku : null, id);
      // The product's options may have changed since: a restored variant must not repeat a live one's values.
      if (Array.isArray(data.optionValues)) checkCombinationFree(await liveVariants(tx, row.productId), data.optionValues.map(String), id);
    }
    await tx.productVariant.update({ where: { id }, data: data as Prisma.ProductVariantUncheckedUpdateInput });
  },
};
