import { deferWrite, queryRows, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { manualPaymentProvider, type PaymentProvider } from '../domain/payment.ts';
import { priceOrder } from '../domain/pricing.ts';
import { AppError } from '../errors.ts';
import { Prisma, type DiscountCode } from '../generated/prisma/client.ts';
import { cartSnapshot, lockOpenCart } from './carts.ts';
import { discountTerms, discountUnavailable, normalizeCode } from './discounts.ts';

/** How orders placed by agents are paid; swapping in a real processor means passing another provider here. */
const paymentProvider: PaymentProvider = manualPaymentProvider;

type Line = { productId: string; quantity: bigint };
type TakenLine = Line & { slug: string; name: string; priceDkk: bigint };
type Taken = { lines: Line[]; taken: TakenLine[]; discount: (Pick<DiscountCode, 'code' | 'type'> & { value: number }) | null };

/**
 * Takes the cart's units from stock and counts the discount's use, in one statement. Product rows are locked in
 * product-id order first (the `locked` sub-select), so concurrent checkouts of overlapping carts queue in one order
 * and cannot deadlock; the discount row is locked only after them (its UPDATE waits for `taken` through the
 * sub-select in its WHERE), the order a cancellation uses too. Each product's UPDATE only matches while enough
 * stock is left, and concurrent checkouts re-check it on the newest row version once they hold the lock, so stock
 * never goes below zero. The code is counted only while it is active, unexpired and below its limit.
 * The lines are read here, after the cart lock was taken (a statement earlier), so none added meanwhile is missed.
 * Without a code the statement has no discount part at all, so an ordinary checkout never reads "DiscountCode".
 */
async function takeStock(tx: Tx, cartId: string, discountCode: string | null, now: Date): Promise<Taken> {
  const [row] = await queryRows<Taken>(tx, Prisma.sql`
    WITH lines AS (SELECT "productId", quantity FROM "CartItem" WHERE "cartId" = ${cartId}),
         locked AS (SELECT id FROM "Product" WHERE id IN (SELECT "productId" FROM lines) ORDER BY id FOR NO KEY UPDATE),
         taken AS (
           UPDATE "Product" p SET stock = p.stock - l.quantity, "updatedAt" = ${now}
           FROM lines l
           WHERE p.id = l."productId" AND p.id IN (SELECT id FROM locked) AND p."deletedAt" IS NULL AND p.stock >= l.quantity
           RETURNING p.id AS "productId", l.quantity, p.slug, p.name, p."priceDkk")${discountCode === null ? Prisma.empty : Prisma.sql`,
         discount AS (
           UPDATE "DiscountCode" SET "usageCount" = "usageCount" + 1, "updatedAt" = ${now}
           WHERE code = ${discountCode} AND active AND ("validUntil" IS NULL OR "validUntil" > ${now})
             AND ("usageLimit" IS NULL OR "usageCount" < "usageLimit")
             AND (SELECT count(*) FROM taken) = (SELECT count(*) FROM lines)
           RETURNING code, type, value)`}
    SELECT (SELECT coalesce(json_agg(json_build_object('productId', "productId", 'quantity', quantity::text) ORDER BY "productId"), '[]') FROM lines) AS lines,
           (SELECT coalesce(json_agg(json_build_object('productId', "productId", 'quantity', quantity::text, 'slug', slug, 'name', name,
                                                       'priceDkk', "priceDkk"::text) ORDER BY "productId"), '[]') FROM taken) AS taken,
           ${discountCode === null ? Prisma.sql`NULL::json` : Prisma.sql`(SELECT json_build_object('code', code, 'type', type, 'value', value) FROM discount)`} AS discount`,
  // Prepared only without a code. With one it is planned per call: a generic plan made while "DiscountCode" was
  // nearly empty would be a sequential scan over every code, kept as the table grows (docs/performance.md, item 11).
  { prepareAs: discountCode === null ? 'checkout_take_stock' : undefined });
  // json carries the bigints as strings: exact whatever their size.
  const bigints = <T extends { quantity: string | bigint; priceDkk?: string | bigint }>(l: T) =>
    ({ ...l, quantity: BigInt(l.quantity), ...(l.priceDkk === undefined ? {} : { priceDkk: BigInt(l.priceDkk) }) });
  return { lines: row.lines.map(bigints), taken: row.taken.map(bigints) as TakenLine[], discount: row.discount };
}

/** Why the first line (in product-id order) that could not be taken was short. */
async function outOfStock(tx: Tx, missing: Line): Promise<AppError> {
  const [p] = await queryRows<{ slug: string; stock: bigint; deletedAt: Date | null }>(tx, Prisma.sql`
    SELECT slug, stock, "deletedAt" FROM "Product" WHERE id = ${missing.productId}`);
  return new AppError(
    'out_of_stock',
    p.deletedAt !== null
      ? `"${p.slug}" is no longer sold; remove it with cart.update_item (quantity 0).`
      : `"${p.slug}": ${missing.quantity} requested, ${p.stock} in stock.`,
  );
}

export type Contact = {
  email: string; shippingName: string; shippingAddress: string; shippingZip: string; shippingCity: string;
  billingName?: string; billingAddress?: string; billingZip?: string; billingCity?: string; billingCountry?: string; phoneNumber?: string;
};

export type Buyer = { keyId: string; agentName: string | null };

/**
 * Turns an open cart into an order in one transaction: stock taken, the discount's use counted, the order priced
 * like the cart preview, payment started and the cart closed. Any failure rolls all of it back.
 * Two statements of its own: lock the cart (with the shop's terms), take stock and the discount; writing the order with
 * its lines and closing the cart is deferred to the write's final statement. The order's row is built here, so
 * nothing is read back.
 */
export async function placeOrder(tx: Tx, buyer: Buyer, cartId: string, contact: Contact, discountCode: string | undefined) {
  const { cart, terms } = await lockOpenCart(tx, buyer.keyId, cartId);
  const now = new Date();
  const code = discountCode === undefined ? null : normalizeCode(discountCode);
  const { lines, taken, discount } = await takeStock(tx, cartId, code, now);
  if (lines.length === 0) throw new AppError('empty_cart', `Cart "${cartId}" is empty.`);
  const short = lines.find((l) => !taken.some((t) => t.productId === l.productId));
  if (short) throw await outOfStock(tx, short);
  if (code !== null && !discount) throw await discountUnavailable(tx, code);

  const money = priceOrder(
    taken.map((t) => ({ unitPriceDkk: Number(t.priceDkk), quantity: Number(t.quantity) })),
    discount && discountTerms(discount),
    terms.pricing,
  );
  const orderId = newId();
  const payment = await paymentProvider.start({ orderId, totalDkk: money.totalDkk, currency: terms.currency });
  const order = {
    id: orderId,
    userId: null,
    email: contact.email,
    status: 'pending_payment' as const,
    shippingName: contact.shippingName,
    shippingAddress: contact.shippingAddress,
    shippingZip: contact.shippingZip,
    shippingCity: contact.shippingCity,
    billingName: contact.billingName ?? null,
    billingAddress: contact.billingAddress ?? null,
    billingZip: contact.billingZip ?? null,
    billingCity: contact.billingCity ?? null,
    billingCountry: contact.billingCountry ?? null,
    phoneNumber: contact.phoneNumber ?? null,
    subtotalDkk: money.subtotalDkk,
    shippingDkk: money.shippingDkk,
    discountDkk: money.discountDkk,
    totalDkk: money.totalDkk,
    vatOere: money.vatOere,
    invoiceProvider: null,
    invoiceId: null,
    invoicePdfUrl: null,
    discountCode: discount?.code ?? null,
    isAiGenerated: true,
    aiAgentSource: buyer.agentName,
    carrier: null,
    trackingNumber: null,
    trackingUrl: null,
    estDeliveryFrom: null,
    estDeliveryTo: null,
    createdAt: now,
    updatedAt: now,
    stripePaymentIntentId: payment.externalId,
    paymentMethod: payment.paymentMethod,
    paidAt: null,
    confirmationEmailSentAt: null,
    refundedAt: null,
    disputedAt: null,
    shippedAt: null,
    currency: terms.currency,
    // Prices are kept in the shop's currency and orders are charged in it, so there is nothing to convert.
    fxRate: 1,
    channel: 'agent',
    acpSessionId: null,
  };
  const items = taken.map((t) => ({
    id: newId(), orderId, productId: t.productId, productName: t.name, unitPriceDkk: t.priceDkk, quantity: t.quantity,
    variantId: null, variantSku: null, variantAttributes: null,
  }));
  // The order, its lines and the closed cart join the write's final statement (no round trip of their own while the
  // product rows are locked): nothing is read back, and nothing runs after this in the handler.
  await deferWrite(tx, { name: 'place_order', ctes: Prisma.sql`
         placed_order AS (
           INSERT INTO "Order" (id, email, status, "shippingName", "shippingAddress", "shippingZip", "shippingCity", "billingName",
                                "billingAddress", "billingZip", "billingCity", "billingCountry", "phoneNumber", "subtotalDkk", "shippingDkk",
                                "discountDkk", "totalDkk", "vatOere", "discountCode", "isAiGenerated", "aiAgentSource", "createdAt",
                                "updatedAt", "stripePaymentIntentId", "paymentMethod", currency, "fxRate", channel)
           VALUES (${orderId}, ${order.email}, 'pending_payment', ${order.shippingName}, ${order.shippingAddress}, ${order.shippingZip},
                   ${order.shippingCity}, ${order.billingName}, ${order.billingAddress}, ${order.billingZip}, ${order.billingCity},
                   ${order.billingCountry}, ${order.phoneNumber}, ${order.subtotalDkk}, ${order.shippingDkk}, ${order.discountDkk},
                   ${order.totalDkk}, ${order.vatOere}, ${order.discountCode}, true, ${order.aiAgentSource}, ${now}, ${now},
                   ${order.stripePaymentIntentId}, ${order.paymentMethod}, ${order.currency}, 1, 'agent')),
         placed_lines AS (
           INSERT INTO "OrderItem" (id, "orderId", "productId", "productName", "unitPriceDkk", quantity)
           SELECT id, ${orderId}, "productId", "productName", "unitPriceDkk", quantity
           FROM unnest(${items.map((i) => i.id)}::text[], ${items.map((i) => i.productId)}::text[], ${items.map((i) => i.productName)}::text[],
                       ${items.map((i) => i.unitPriceDkk.toString())}::bigint[], ${items.map((i) => i.quantity.toString())}::bigint[])
                AS i(id, "productId", "productName", "unitPriceDkk", quantity)),
         closed_cart AS (
           UPDATE "Cart" SET status = 'checked_out', "orderId" = ${orderId}, email = ${contact.email}, "discountCode" = ${order.discountCode},
                             "updatedAt" = ${now}
           WHERE id = ${cartId})` });

  const cartAfter = { ...cart, status: 'checked_out' as const, orderId, email: contact.email, discountCode: order.discountCode, updatedAt: now };
  return {
    order,
    money,
    taken: taken.map((t) => ({ productId: t.productId, productSlug: t.slug, productName: t.name, quantity: Number(t.quantity), unitPriceDkk: Number(t.priceDkk) })),
    discountCode: order.discountCode,
    payment: { provider: paymentProvider.name, instructions: payment.instructions },
    // What orders.get returns for it; items in id order (their ids were drawn in this order).
    orderSnapshot: plainJson({ ...order, items }),
    cartBefore: cartSnapshot(cart, lines),
    cartAfter: cartSnapshot(cartAfter, lines),
  };
}
