import { queryRows, type DbClient, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { priceOrder, type PricingSettings } from '../domain/pricing.ts';
import { AppError } from '../errors.ts';
import { Prisma, type Cart, type DiscountCode } from '../generated/prisma/client.ts';
import { MAX_INT } from '../schemas/numbers.ts';
import { discountTerms, usableDiscount } from './discounts.ts';
import { loadSettings, pricingSettings } from './settings.ts';

/** A cart line with what the priced cart shows of its variant and product. `deletedAt`: the variant's or the product's. */
export type CartLine = {
  id: string; productId: string; variantId: string; quantity: bigint; slug: string; name: string; sku: string | null;
  optionValues: string[]; optionNames: string[] | null; priceDkk: bigint; stock: bigint; trackStock: boolean; allowBackorder: boolean;
  deletedAt: Date | null;
};

/** A line an order is placed from (a cart's, or a checkout session's): a cart line without its own id. */
export type OrderLine = Omit<CartLine, 'id'>;

/** What a cart line names: a variant by id or SKU, or a product by slug when it has exactly one variant. */
export type LineRef = { variantId: string } | { sku: string } | { productSlug: string };

/** What pricing a cart or an order needs of the shop's settings. */
export type ShopTerms = { currency: string; pricing: PricingSettings };

const CART_COLUMNS = Prisma.sql`c.id, c."apiKeyId", c.email, c."discountCode", c.status, c."orderId", c."createdAt", c."updatedAt"`;
/** The names of a product's options, in order (null without options): a line's option values by name. */
export const OPTION_NAMES = Prisma.sql`(SELECT array_agg(o.name ORDER BY o.position) FROM "ProductOption" o WHERE o."productId" = p.id)`;
const VARIANT_COLUMNS = Prisma.sql`v.sku, v."optionValues", ${OPTION_NAMES} AS "optionNames", v."priceDkk", v.stock, v."trackStock", v."allowBackorder"`;
const LINE_COLUMNS = Prisma.sql`l.id, l."productId", l."variantId", l.quantity, p.slug, p.name, ${VARIANT_COLUMNS}, coalesce(v."deletedAt", p."deletedAt") AS "deletedAt"`;
/**
 * Each line's variant and product looked up by key, line by line: OFFSET 0 keeps the planner from turning the
 * subqueries into joins it may plan as hashes. A cart holds a handful of lines, but without statistics on "CartItem"
 * (a fresh or fast-growing table) the planner assumes 0.5 % of the table per cart, and the prepared statements' generic
 * plans then hashed every variant and product for each checkout (docs/performance.md, "Writes" item 22).
 */
const LINE_JOINS = Prisma.sql`"CartItem" l
  CROSS JOIN LATERAL (SELECT * FROM "ProductVariant" v WHERE v.id = l."variantId" OFFSET 0) v
  CROSS JOIN LATERAL (SELECT * FROM "Product" p WHERE p.id = l."productId" OFFSET 0) p`;

function ownCart(cart: Cart | undefined, keyId: string, cartId: string): Cart {
  if (!cart || cart.apiKeyId !== keyId) throw new AppError('not_found', `No cart with id "${cartId}".`);
  return cart;
}

/** A cart of the calling key. Another key's cart is reported as missing, so cart ids reveal nothing. */
export async function findCart(db: DbClient, keyId: string, cartId: string): Promise<Cart> {
  const [cart] = await queryRows<Cart>(db, Prisma.sql`SELECT ${CART_COLUMNS} FROM "Cart" c WHERE c.id = ${cartId}`, { prepareAs: 'cart_find' });
  return ownCart(cart, keyId, cartId);
}

type TermsRow = { settingsId: number | null; currency: string; shippingFeeDkk: bigint; freeShippingThresholdDkk: bigint | null; vatRateBasisPoints: number };

async function termsOf(db: DbClient, row: TermsRow): Promise<ShopTerms> {
  // No settings row yet: loadSettings creates it with the schema's defaults (once per database).
  const settings = row.settingsId === null ? await loadSettings(db) : row;
  return { currency: settings.currency, pricing: pricingSettings(settings) };
}

type LockedRow = Cart & TermsRow;

/** The cart row locked, its owner and status checked, the shop's terms; `extra` is the statement's "extra" column, if any. */
async function lockCartRow<Extra = undefined>(tx: Tx, keyId: string, cartId: string, sql: Prisma.Sql, prepareAs: string | undefined) {
  const [row] = await queryRows<LockedRow & { extra: Extra }>(tx, sql, { prepareAs });
  const { settingsId, currency, shippingFeeDkk, freeShippingThresholdDkk, vatRateBasisPoints, extra, ...cartColumns } = row ?? ({} as LockedRow & { extra: Extra });
  const cart = ownCart(row && cartColumns, keyId, cartId);
  if (cart.status !== 'open') throw new AppError('cart_closed', `Cart "${cartId}" was already checked out (order ${cart.orderId}).`);
  return { cart, extra, terms: await termsOf(tx, { settingsId, currency, shippingFeeDkk, freeShippingThresholdDkk, vatRateBasisPoints }) };
}

const LOCK_COLUMNS = Prisma.sql`${CART_COLUMNS}, s.id AS "settingsId", s.currency, s."shippingFeeDkk", s."freeShippingThresholdDkk", s."vatRateBasisPoints"`;

/**
 * Locks the cart row for the rest of the transaction and checks it is still open: every change to a cart and its
 * checkout queue on this lock, so an item added while a checkout runs cannot slip past it, and a cart is checked out
 * at most once. The shop's pricing terms come with it, in the same statement.
 */
export async function lockOpenCart(tx: Tx, keyId: string, cartId: string): Promise<{ cart: Cart; terms: ShopTerms }> {
  const { cart, terms } = await lockCartRow(tx, keyId, cartId, Prisma.sql`
    SELECT ${LOCK_COLUMNS} FROM "Cart" c LEFT JOIN "ShopSettings" s ON s.id = 1 WHERE c.id = ${cartId} FOR UPDATE OF c`, 'cart_lock');
  return { cart, terms };
}

/** The discount code's row as a checkout reads it. */
export type CheckoutDiscount = Pick<DiscountCode, 'code' | 'type' | 'active' | 'validUntil' | 'usageLimit' | 'usageCount' | 'value'>;

/**
 * A row as json carries it: bigints as numbers (exact: the API bounds every integer to ±2^53-1) or as text, timestamps as
 * ISO text.
 */
export type AsJson<T> = { [K in keyof T]: T[K] extends bigint ? number | string : T[K] extends bigint | null ? number | string | null : T[K] extends Date | null ? string | null : T[K] };
type CheckoutExtra = { lines: AsJson<CartLine>[]; discounts: AsJson<CheckoutDiscount>[] };

export const bigintOrNull = (v: number | string | null) => (v === null ? null : BigInt(v));

/** A discount code's row as a checkout reads it, as json (alias `d`): what checkoutDiscountOf reads back. */
export const DISCOUNT_JSON = Prisma.sql`json_build_object('code', d.code, 'type', d.type, 'value', d.value::text, 'active', d.active,
  'validUntil', d."validUntil", 'usageLimit', d."usageLimit"::text, 'usageCount', d."usageCount"::text)`;

export const checkoutDiscountOf = (d: AsJson<CheckoutDiscount>): CheckoutDiscount => ({
  ...d, value: BigInt(d.value), validUntil: d.validUntil === null ? null : new Date(d.validUntil), usageLimit: bigintOrNull(d.usageLimit), usageCount: BigInt(d.usageCount),
});

/**
 * lockOpenCart for a checkout, in the same one statement: the cart's lines with their products (by product id) and,
 * when codes are given, the rows of those discount codes that exist. Products and code are read, not locked: the
 * checkout's final statement locks them and checks that what was read still holds (src/services/checkout.ts). The
 * lines are read in the snapshot this statement started with, so a line committed while it waited for the cart lock
 * is not among them; that check catches it too.
 */
export async function lockCartForCheckout(tx: Tx, keyId: string, cartId: string, codes: readonly string[]) {
  const { cart, terms, extra } = await lockCartRow<CheckoutExtra>(tx, keyId, cartId, Prisma.sql`
    SELECT ${LOCK_COLUMNS}, json_build_object(
             'lines', (SELECT coalesce(json_agg(line ORDER BY line."productId"), '[]')
                       FROM (SELECT ${LINE_COLUMNS} FROM ${LINE_JOINS} WHERE l."cartId" = c.id) line),
             'discounts', ${codes.length === 0 ? Prisma.sql`'[]'::json` : Prisma.sql`(
               SELECT coalesce(json_agg(${DISCOUNT_JSON}), '[]') FROM "DiscountCode" d WHERE code = ANY (${[...codes]}::text[]))`}) AS extra
    FROM "Cart" c LEFT JOIN "ShopSettings" s ON s.id = 1 WHERE c.id = ${cartId} FOR UPDATE OF c`,
  // Prepared only without a code: a generic plan made while "DiscountCode" was nearly empty would be a sequential scan
  // over every code, kept as the table grows (docs/performance.md, item 11).
  codes.length === 0 ? 'cart_lock_checkout' : undefined);
  const lines: CartLine[] = extra.lines.map((l) => ({
    ...l, quantity: BigInt(l.quantity), priceDkk: BigInt(l.priceDkk), stock: BigInt(l.stock), deletedAt: l.deletedAt === null ? null : new Date(l.deletedAt),
  }));
  return { cart, terms, lines, discounts: extra.discounts.map(checkoutDiscountOf) };
}

/** The cart's lines with their products. */
export function cartLines(db: DbClient, cartId: string): Promise<CartLine[]> {
  return queryRows<CartLine>(db, Prisma.sql`SELECT ${LINE_COLUMNS} FROM ${LINE_JOINS} WHERE l."cartId" = ${cartId}`, { prepareAs: 'cart_lines' });
}

/**
 * Whether a line could be checked out now: its variant and product are still sold and it has the units in stock (or
 * is sold on backorder, or its stock is not tracked). The priced cart shows it as `available`; a checkout refuses the
 * first line without it (422 out_of_stock).
 */
export const lineAvailable = (l: Pick<CartLine, 'deletedAt' | 'stock' | 'quantity' | 'trackStock' | 'allowBackorder'>) =>
  l.deletedAt === null && (l.stock >= l.quantity || !l.trackStock || l.allowBackorder);

/** A line's option values by option name ({} without options): the cart's `options` and the order line's variantAttributes. */
export const lineOptions = (l: Pick<CartLine, 'optionNames' | 'optionValues'>): Record<string, string> =>
  Object.fromEntries((l.optionNames ?? []).flatMap((name, i) => (l.optionValues[i] === undefined ? [] : [[name, l.optionValues[i]]])));

/** What a cart's audit entries record: the cart row and its lines (product, variant and quantity, by variant id). */
export function cartSnapshot(cart: Cart, lines: readonly Pick<CartLine, 'productId' | 'variantId' | 'quantity'>[]) {
  const items = [...lines].sort((a, b) => (a.variantId < b.variantId ? -1 : 1)).map((l) => ({ productId: l.productId, variantId: l.variantId, quantity: l.quantity }));
  return plainJson({ ...cart, items });
}

/** The priced preview: current prices, the discount if one is given, the shop's shipping and VAT rules; lines by id. */
export function pricedCart(cart: Cart, lines: readonly CartLine[], terms: ShopTerms, discount: DiscountCode | null) {
  const sorted = [...lines].sort((a, b) => (a.id < b.id ? -1 : 1));
  const priced = sorted.map((l) => ({ unitPriceDkk: Number(l.priceDkk), quantity: Number(l.quantity) }));
  const money = priceOrder(priced, discount && discountTerms(discount), terms.pricing);
  return {
    cartId: cart.id,
    status: cart.status,
    orderId: cart.orderId,
    currency: terms.currency,
    items: sorted.map((l, i) => ({
      productSlug: l.slug,
      productName: l.name,
      variantId: l.variantId,
      sku: l.sku,
      options: lineOptions(l),
      unitPriceDkk: priced[i].unitPriceDkk,
      quantity: priced[i].quantity,
      // Exact in floating point: priceOrder has already checked that the subtotal, and so every line, is below 2^53.
      lineTotalDkk: priced[i].unitPriceDkk * priced[i].quantity,
      available: lineAvailable(l),
    })),
    discountCode: discount?.code ?? null,
    ...money,
    createdAt: cart.createdAt.toISOString(),
  };
}

/** The priced cart as it is now, with a discount code previewed (422 discount_unavailable when it cannot be used). */
export async function cartView(db: DbClient, cart: Cart, discountCode: string | undefined) {
  const settings = await loadSettings(db);
  const discount = discountCode ? await usableDiscount(db, discountCode) : null;
  return pricedCart(cart, await cartLines(db, cart.id), { currency: settings.currency, pricing: pricingSettings(settings) }, discount);
}

type AddRow = CartLine & { role: 'line' | 'added' | 'too_many' };

/** The live variant a line reference names; by product slug only while the product has exactly one live variant. */
function variantWhere(ref: LineRef): { sql: Prisma.Sql; kind: string } {
  if ('variantId' in ref) return { sql: Prisma.sql`v.id = ${ref.variantId}`, kind: 'variant' };
  if ('sku' in ref) return { sql: Prisma.sql`v.sku = ${ref.sku}`, kind: 'sku' };
  return {
    sql: Prisma.sql`p.slug = ${ref.productSlug} AND NOT EXISTS (SELECT FROM "ProductVariant" o WHERE o."productId" = p.id AND o."deletedAt" IS NULL AND o.id <> v.id)`,
    kind: 'slug',
  };
}

const describeRef = (ref: LineRef) => ('variantId' in ref ? `variant "${ref.variantId}"` : 'sku' in ref ? `SKU "${ref.sku}"` : `"${ref.productSlug}"`);

/**
 * Why a reference names no live variant: a product with several (422 variant_required, listing them, so the caller
 * picks one: never this service), or nothing live (404). Only on the failure path.
 */
async function noVariant(tx: Tx, ref: LineRef, choices: () => Promise<{ id: string; sku: string | null; optionValues: string[] }[]>): Promise<AppError> {
  const listed = 'productSlug' in ref ? await choices() : [];
  if (listed.length > 1) {
    const list = listed.map((v) => `${v.id}${v.sku === null ? '' : ` (sku ${v.sku})`}: ${v.optionValues.join(' / ')}`).join('; ');
    return new AppError('variant_required', `"${'productSlug' in ref ? ref.productSlug : ''}" has ${listed.length} variants; name one by variantId or sku: ${list}.`);
  }
  return new AppError('not_found', 'productSlug' in ref ? `No product with slug "${ref.productSlug}".` : `No live ${describeRef(ref)}.`);
}

const liveVariantsOfSlug = (tx: Tx, productSlug: string) =>
  tx.productVariant.findMany({
    where: { deletedAt: null, product: { slug: productSlug, deletedAt: null } },
    orderBy: [{ position: 'asc' }, { id: 'asc' }],
    select: { id: true, sku: true, optionValues: true },
  });

/**
 * Adds units of a live variant to a locked open cart (merging with its line), in one statement that also returns
 * the lines as they were and the changed line — the audit's before and after, and the priced cart — instead of a
 * variant lookup, a line lookup, a write and two re-reads.
 */
export async function addCartLine(tx: Tx, cartId: string, ref: LineRef, units: number): Promise<{ before: CartLine[]; after: CartLine[] }> {
  const target = variantWhere(ref);
  const rows = await queryRows<AddRow>(tx, Prisma.sql`
    WITH p AS (SELECT p.id, v.id AS "variantId", p.slug, p.name, ${VARIANT_COLUMNS}, v."deletedAt"
               FROM "ProductVariant" v JOIN "Product" p ON p.id = v."productId"
               WHERE ${target.sql} AND v."deletedAt" IS NULL AND p."deletedAt" IS NULL),
         added AS (
           INSERT INTO "CartItem" AS l (id, "cartId", "productId", "variantId", quantity)
           SELECT ${newId()}, ${cartId}, p.id, p."variantId", ${units}::bigint FROM p
           ON CONFLICT ("cartId", "variantId") DO UPDATE SET quantity = l.quantity + EXCLUDED.quantity
             WHERE l.quantity + EXCLUDED.quantity <= ${MAX_INT}::bigint
           RETURNING l.id, l."productId", l."variantId", l.quantity)
    SELECT 'line' AS role, ${LINE_COLUMNS} FROM ${LINE_JOINS} WHERE l."cartId" = ${cartId}
    UNION ALL
    SELECT 'added', l.id, l."productId", l."variantId", l.quantity, p.slug, p.name, p.sku, p."optionValues", p."optionNames", p."priceDkk",
           p.stock, p."trackStock", p."allowBackorder", p."deletedAt" FROM added l CROSS JOIN p
    UNION ALL
    SELECT 'too_many', NULL, p.id, p."variantId", NULL, p.slug, p.name, p.sku, p."optionValues", p."optionNames", p."priceDkk",
           p.stock, p."trackStock", p."allowBackorder", p."deletedAt" FROM p WHERE NOT EXISTS (SELECT FROM added)`,
  { prepareAs: `cart_add_line_${target.kind}` });
  const line = ({ role: _role, ...l }: AddRow): CartLine => l;
  const added = rows.find((r) => r.role === 'added');
  if (!added) {
    if (rows.some((r) => r.role === 'too_many')) throw new AppError('value_out_of_range', `quantity: the cart would hold more than ${MAX_INT} units of ${describeRef(ref)}.`);
    throw await noVariant(tx, ref, () => liveVariantsOfSlug(tx, 'productSlug' in ref ? ref.productSlug : ''));
  }
  const before = rows.filter((r) => r.role === 'line').map(line);
  return { before, after: [...before.filter((l) => l.variantId !== added.variantId), line(added)] };
}

/** Sets the units of a line already in the cart; 0 removes it. A product slug names its line while it has one. */
export async function setCartLine(tx: Tx, cartId: string, ref: LineRef, units: number): Promise<void> {
  // Deleted variants and products included: removing a line that is no longer sold must stay possible.
  const lines = await tx.cartItem.findMany({
    where: {
      cartId,
      ...('variantId' in ref ? { variantId: ref.variantId } : 'sku' in ref ? { variant: { sku: ref.sku } } : { product: { slug: ref.productSlug } }),
    },
    select: { id: true, variant: { select: { id: true, sku: true, optionValues: true } } },
  });
  if (lines.length > 1) throw await noVariant(tx, ref, async () => lines.flatMap((l) => (l.variant ? [l.variant] : [])));
  const [line] = lines;
  if (!line) throw new AppError('not_found', `Cart "${cartId}" has no line for ${describeRef(ref)}.`);
  if (units === 0) await tx.cartItem.delete({ where: { id: line.id } });
  else await tx.cartItem.update({ where: { id: line.id }, data: { quantity: BigInt(units) } });
}
