import type { Config, EmailConfig } from '../config.ts';
import { deferWrite, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { enqueueCheckoutConfirmation } from '../email/outbox.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { paymentProviderNamed, type PaymentProvider } from '../domain/payment.ts';
import { priceOrder } from '../domain/pricing.ts';
import { AppError } from '../errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { cartSnapshot, lineAvailable, lineOptions, lockCartForCheckout, type CheckoutDiscount, type OrderLine, type ShopTerms } from './carts.ts';
import { discountTerms, normalizeCode, usableNow } from './discounts.ts';

/** A line as a buyer names it: the product's slug, and the variant's option values when it has any. */
const lineName = (line: OrderLine) => `"${line.slug}"${line.optionValues.length === 0 ? '' : ` (${line.optionValues.join(' / ')})`}`;

/** Why the first line (in product-id order) that cannot be taken is short, as the checkout read it. */
function outOfStock(line: OrderLine): AppError {
  return new AppError(
    'out_of_stock',
    line.deletedAt === null
      ? `${lineName(line)}: ${line.quantity} requested, ${line.stock} in stock.`
      : `${lineName(line)} is no longer sold; remove it with cart.update_item (quantity 0).`,
  );
}

export type Contact = {
  email: string; shippingName: string; shippingAddress: string; shippingZip: string; shippingCity: string;
  billingName?: string; billingAddress?: string; billingZip?: string; billingCity?: string; billingCountry?: string; phoneNumber?: string;
};

/** Where an order comes from (docs/commerce.md): an agent's tools, the storefront, or a checkout protocol's session. */
export type OrderChannel = 'agent' | 'web' | 'acp' | 'ucp';

/**
 * Who checks out: the owner of the cart (an API key, or the storefront's cookie-held cart owner), the agent's name
 * when known, the channel, and for the protocols the checkout session the order came from (stored as acpSessionId).
 */
/** What a checkout takes from the service's settings: how orders are paid (PAYMENTS_PROVIDER) and the SMTP settings. */
/**
 * `shippingDkk`: the shipping the buyer chose elsewhere (a checkout session's fulfillment option, already free or
 * not); left out, the settings' fee and free-shipping threshold decide it.
 */
export type CheckoutSetup = { payments: PaymentProvider; email: EmailConfig | undefined; shippingDkk?: number };

export const checkoutSetup = (config: Pick<Config, 'payments' | 'email'>): CheckoutSetup =>
  ({ payments: paymentProviderNamed(config.payments.provider), email: config.email });

export type Buyer = { keyId: string; agentName: string | null; channel: OrderChannel; sessionId?: string | null };

/**
 * Turns an open cart into an order in one transaction: stock taken, the discount's use counted, the order priced
 * like the cart preview, payment started and the cart closed. Any failure rolls all of it back.
 *
 * One statement of its own: the cart locked, with the shop's terms, its lines and products and the discount code
 * read (lockCartForCheckout). Everything else is decided from that read and written in the write's final statement
 * (deferWrite), so the product rows are locked only for that statement and its COMMIT, not across round trips
 * through this process: under one hot product that lock is what every checkout queues on. In that statement the
 * products are locked in product-id order (the `locked` sub-select), so concurrent checkouts of overlapping carts
 * queue in one order and cannot deadlock; the discount row only after them (its UPDATE waits for `taken`), the
 * order a cancellation uses too. Each product's UPDATE matches only while enough stock is left and its price, name
 * and slug are the ones read, re-checked on the newest row version once the lock is held, so stock never goes below
 * zero and the order is priced as its rows are. The code is counted only while it is active, unexpired, below its
 * limit and still has the terms read. When anything read has changed meanwhile (a line added while this waited
 * for the cart lock, a price, the last units sold), agent_api_expect fails the statement as a serialization
 * failure and the call runs again (src/registry/invoke-tool.ts), now answering from the rows as they are.
 * Without a code the statements have no discount part at all, so an ordinary checkout never reads "DiscountCode".
 * `setup.email` is the service's SMTP settings (config.email): with them, a manually paid order's confirmation joins
 * the same final statement (docs/email.md). Starting the payment (`setup.payments`) does no I/O inside this
 * transaction (docs/payments.md).
 */
export async function placeOrder(
  tx: Tx, buyer: Buyer, cartId: string, contact: Contact, discountCode: string | readonly string[] | undefined, setup: CheckoutSetup,
) {
  // Several codes (a checkout session's) apply one after another, in the order given; each is counted once.
  const codes = [...new Set((discountCode === undefined ? [] : typeof discountCode === 'string' ? [discountCode] : discountCode).map(normalizeCode))];
  const { cart, terms, lines, discounts } = await lockCartForCheckout(tx, buyer.keyId, cartId, codes);
  if (lines.length === 0) throw new AppError('empty_cart', `Cart "${cartId}" is empty.`);
  const now = new Date();
  const placed = await placeOrderOf(tx, buyer, { terms, lines, discounts }, codes, contact, setup, now, {
    name: 'place_order',
    lines: Prisma.sql`SELECT "productId", "variantId", quantity FROM "CartItem" WHERE "cartId" = ${cartId}`,
    close: (orderId, discountCodes, holds) => Prisma.sql`closed_cart AS (
           UPDATE "Cart" SET status = 'checked_out', "orderId" = ${orderId}, email = ${contact.email}, "discountCode" = ${discountCodes}, "updatedAt" = ${now}
           WHERE id = ${cartId} AND agent_api_expect(${holds}, 'the cart, its products or the discount code'))`,
  });
  const cartAfter = { ...cart, status: 'checked_out' as const, orderId: placed.order.id, email: contact.email, discountCode: placed.discountCode, updatedAt: now };
  return { ...placed, cartBefore: cartSnapshot(cart, lines), cartAfter: cartSnapshot(cartAfter, lines) };
}

/** What a checkout read before placing its order: the shop's terms, the lines with their variants (in product-id order), the codes' rows. */
export type CheckoutRead = { terms: ShopTerms; lines: readonly OrderLine[]; discounts: readonly CheckoutDiscount[] };

/**
 * Where an order's lines come from and what it closes, in the final statement: `lines` selects the lines as they are
 * now (productId, variantId, quantity), `close` is the CTE that closes the cart or the session, which holds only
 * while `holds` (everything read still holds). `name` names the statement (one fixed SQL text per name).
 */
export type OrderSource = { name: string; lines: Prisma.Sql; close: (orderId: string, discountCodes: string | null, holds: Prisma.Sql) => Prisma.Sql };

/**
 * placeOrder's decision and final statement for lines already read and checked for what they are: a cart's
 * (placeOrder) or a checkout session's (src/services/checkout-sessions.ts). `codes` are the normalized codes to
 * apply, each of which must be usable now (422 discount_unavailable otherwise).
 */
export async function placeOrderOf(
  tx: Tx, buyer: Buyer, read: CheckoutRead, codes: readonly string[], contact: Contact, setup: CheckoutSetup, now: Date, source: OrderSource,
) {
  const { payments: paymentProvider, email } = setup;
  const { terms, lines } = read;
  const short = lines.find((l) => !lineAvailable(l));
  if (short) throw outOfStock(short);
  const discounts = codes.map((code) => usableNow(read.discounts.find((r) => r.code === code) ?? null, code, now));

  const money = priceOrder(
    lines.map((l) => ({ unitPriceDkk: Number(l.priceDkk), quantity: Number(l.quantity) })),
    discounts.map(discountTerms),
    setup.shippingDkk === undefined ? terms.pricing : { ...terms.pricing, shippingFeeDkk: setup.shippingDkk, freeShippingThresholdDkk: null },
  );
  const orderId = newId();
  const payment = paymentProvider.start({ orderId, totalDkk: money.totalDkk, currency: terms.currency });
  // A payment taken before: the row is inserted paid (paidSnapshot below); `order` stays the order as placed.
  const paidAt = payment.paid ? now : null;
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
    // Several codes are kept comma-separated (codes never contain a comma); a cancellation gives each a use back.
    discountCode: discounts.length === 0 ? null : discounts.map((d) => d.code).join(','),
    // Only the storefront's orders are placed by a person.
    isAiGenerated: buyer.channel !== 'web',
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
    channel: buyer.channel,
    acpSessionId: buyer.sessionId ?? null,
    refundedDkk: 0,
    stripeCheckoutSessionId: null,
  };
  const items = lines.map((l) => ({
    id: newId(), orderId, productId: l.productId, productName: l.name, unitPriceDkk: l.priceDkk, quantity: l.quantity,
    variantId: l.variantId, variantSku: l.sku, variantAttributes: lineOptions(l),
  }));
  const holds = Prisma.sql`(SELECT count(*) FROM lines) = ${lines.length} AND (SELECT count(*) FROM taken) = ${lines.length}${
    discounts.length === 0 ? Prisma.empty : Prisma.sql` AND (SELECT count(*) FROM discount) = ${discounts.length}`}`;
  await deferWrite(tx, { name: source.name, prepared: codes.length === 0, ctes: Prisma.sql`
         expected AS (
           SELECT * FROM unnest(${items.map((i) => i.id)}::text[], ${lines.map((l) => l.productId)}::text[], ${lines.map((l) => l.variantId)}::text[],
                                ${lines.map((l) => l.quantity.toString())}::bigint[], ${lines.map((l) => l.priceDkk.toString())}::bigint[],
                                ${lines.map((l) => l.name)}::text[], ${lines.map((l) => l.slug)}::text[], ${lines.map((l) => l.sku)}::text[],
                                ${items.map((i) => JSON.stringify(i.variantAttributes))}::jsonb[])
             AS e("itemId", "productId", "variantId", quantity, "priceDkk", name, slug, sku, attributes)),
         lines AS (${source.lines}),
         locked AS (SELECT id FROM "Product" WHERE id IN (SELECT "productId" FROM lines) ORDER BY id FOR NO KEY UPDATE),
         taken AS (
           UPDATE "ProductVariant" v SET stock = CASE WHEN v."trackStock" THEN v.stock - e.quantity ELSE v.stock END, "updatedAt" = ${now}
           FROM expected e JOIN lines l ON l."variantId" = e."variantId" AND l.quantity = e.quantity JOIN "Product" p ON p.id = e."productId"
           WHERE v.id = e."variantId" AND v."productId" = p.id AND p.id IN (SELECT id FROM locked) AND p."deletedAt" IS NULL AND v."deletedAt" IS NULL
             AND (v.stock >= e.quantity OR NOT v."trackStock" OR v."allowBackorder")
             AND v."priceDkk" = e."priceDkk" AND p.name = e.name AND p.slug = e.slug
           RETURNING v.id),${discounts.length === 0 ? Prisma.empty : Prisma.sql`
         discount AS (
           UPDATE "DiscountCode" d SET "usageCount" = d."usageCount" + 1, "updatedAt" = ${now}
           FROM unnest(${discounts.map((x) => x.code)}::text[], ${discounts.map((x) => x.type)}::text[], ${discounts.map((x) => x.value.toString())}::bigint[])
             AS read(code, type, value)
           WHERE d.code = read.code AND d.type = read.type::"DiscountType" AND d.value = read.value AND d.active
             AND (d."validUntil" IS NULL OR d."validUntil" > ${now}) AND (d."usageLimit" IS NULL OR d."usageCount" < d."usageLimit")
             AND (SELECT count(*) FROM taken) = ${lines.length}
           RETURNING d.code),`}
         placed_order AS (
           INSERT INTO "Order" (id, email, status, "shippingName", "shippingAddress", "shippingZip", "shippingCity", "billingName",
                                "billingAddress", "billingZip", "billingCity", "billingCountry", "phoneNumber", "subtotalDkk", "shippingDkk",
                                "discountDkk", "totalDkk", "vatOere", "discountCode", "isAiGenerated", "aiAgentSource", "createdAt",
                                "updatedAt", "stripePaymentIntentId", "paymentMethod", currency, "fxRate", channel, "acpSessionId", "paidAt")
           VALUES (${orderId}, ${order.email}, ${paidAt ? 'paid' : 'pending_payment'}::"OrderStatus", ${order.shippingName}, ${order.shippingAddress}, ${order.shippingZip},
                   ${order.shippingCity}, ${order.billingName}, ${order.billingAddress}, ${order.billingZip}, ${order.billingCity},
                   ${order.billingCountry}, ${order.phoneNumber}, ${order.subtotalDkk}, ${order.shippingDkk}, ${order.discountDkk},
                   ${order.totalDkk}, ${order.vatOere}, ${order.discountCode}, ${order.isAiGenerated}, ${order.aiAgentSource}, ${now}, ${now},
                   ${order.stripePaymentIntentId}, ${order.paymentMethod}, ${order.currency}, 1, ${order.channel}, ${order.acpSessionId}, ${paidAt}::timestamptz)),
         placed_lines AS (
           INSERT INTO "OrderItem" (id, "orderId", "productId", "productName", "unitPriceDkk", quantity, "variantId", "variantSku", "variantAttributes")
           SELECT "itemId", ${orderId}, "productId", name, "priceDkk", quantity, "variantId", sku, attributes FROM expected),
         ${source.close(orderId, order.discountCode, holds)}` });
  // The confirmation goes out now for a manual payment (with how to pay) and for a payment already taken.
  if (order.email !== '' && (paymentProvider.name === 'manual' || paidAt)) await enqueueCheckoutConfirmation(tx, email, orderId);

  return {
    order,
    money,
    taken: lines.map((l) => ({
      productId: l.productId, productSlug: l.slug, productName: l.name, variantId: l.variantId, sku: l.sku, options: lineOptions(l),
      quantity: Number(l.quantity), unitPriceDkk: Number(l.priceDkk),
    })),
    discountCode: order.discountCode,
    payment: { provider: paymentProvider.name, instructions: payment.instructions },
    // What orders.get returns for it; items in id order (their ids were drawn in this order).
    orderSnapshot: plainJson({ ...order, items }),
    // The order as the row is stored when the payment was taken before: its move to paid, committed with it.
    paidSnapshot: paidAt && plainJson({ ...order, items, status: 'paid', paidAt }),
  };
}
