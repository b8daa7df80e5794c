import { inTransaction, type Db, type Tx } from '../db/client.ts';
import { eventsOf } from '../events/outbox.ts';
import { AppError, isRetryableConflict } from '../errors.ts';
import type { Cart } from '../generated/prisma/client.ts';
import { recordWrite, type AuditRow } from '../registry/idempotency.ts';
import { addCartLine, cartLines, cartSnapshot, cartView, lockOpenCart, setCartLine, type CartLine } from './carts.ts';
import { placeOrder, type CheckoutSetup, type Contact } from './checkout.ts';
import { addBuyerEmail, completedOrderEntries, completeSession, notPayableByBuyer, sessionSnapshot, viewSession, type SessionView } from './checkout-sessions.ts';
import { normalizeCode, usableDiscount } from './discounts.ts';

// The storefront's cart and checkout (docs/storefront.md, "Buying on the storefront"): the same cart, pricing, stock
// and checkout code as the cart tools, for a cart owned by a browser rather than an API key. The owner id (from the
// storefront's signed cookie, `web_…`) sits in Cart.apiKeyId, where a key's cart has the key's id: the two kinds of
// id never collide, so neither can see the other's carts. Every write is audited like a tool call's (tool
// `storefront.cart` / `storefront.checkout`, no key) and emits the same events (a placed order's order.created).

/** How often a write runs when its transaction asks to be run again (as a tool call does, src/registry/invoke-tool.ts). */
const WRITE_ATTEMPTS = 5;

export type WebWrite = { ownerId: string; clientAddress: string };

/** Runs `fn` in one transaction with its audit entries and events, again from the start on a serialization conflict. */
async function webWrite<T>(db: Db, tool: string, who: WebWrite, fn: (tx: Tx, audit: (row: AuditRow) => void) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const entries: AuditRow[] = [];
    try {
      return await inTransaction(db, async (tx) => {
        const result = await fn(tx, (row) => entries.push({ ...row, meta: { channel: 'web', ...(isRecord(row.meta) ? row.meta : {}) } }));
        await recordWrite(tx, {
          apiKeyId: null, grantId: null, clientAddress: who.clientAddress, tool, entries, events: eventsOf(entries), idempotency: null,
          outcome: { status: 200, body: { ok: true, result: null } },
        });
        return result;
      });
    } catch (err) {
      if (attempt < WRITE_ATTEMPTS && isRetryableConflict(err)) continue;
      throw err;
    }
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The owner's open cart (the newest, should there be several), or null. */
export async function openWebCart(db: Db | Tx, ownerId: string): Promise<Cart | null> {
  return db.cart.findFirst({ where: { apiKeyId: ownerId, status: 'open' }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/**
 * The owner's priced cart (null without one), with its stored discount code applied while it can be used; a code
 * that can no longer be used is left out of the prices and reported as `discountProblem`.
 */
export async function webCartView(db: Db, ownerId: string) {
  const cart = await openWebCart(db, ownerId);
  if (!cart) return null;
  if (cart.discountCode) {
    try {
      return { ...(await cartView(db, cart, cart.discountCode)), discountProblem: null };
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'discount_unavailable') throw err;
      return { ...(await cartView(db, cart, undefined)), discountProblem: cart.discountCode };
    }
  }
  return { ...(await cartView(db, cart, undefined)), discountProblem: null };
}

export type WebCartView = NonNullable<Awaited<ReturnType<typeof webCartView>>>;

/** The owner's open cart locked, created first when there is none (its creation audited). */
async function lockedCart(tx: Tx, ownerId: string, audit: (row: AuditRow) => void) {
  let cart = await openWebCart(tx, ownerId);
  if (!cart) {
    cart = await tx.cart.create({ data: { apiKeyId: ownerId, status: 'open' } });
    audit({ entityType: 'cart', entityId: cart.id, before: null, after: cartSnapshot(cart, []) });
  }
  return lockOpenCart(tx, ownerId, cart.id);
}

/** Adds units of a live variant to the owner's cart (creating it), as cart.add_item does. */
export function addToWebCart(db: Db, who: WebWrite, variantId: string, units: number): Promise<void> {
  return webWrite(db, 'storefront.cart', who, async (tx, audit) => {
    const { cart } = await lockedCart(tx, who.ownerId, audit);
    const { before, after } = await addCartLine(tx, cart.id, { variantId }, units);
    audit({ entityType: 'cart', entityId: cart.id, before: cartSnapshot(cart, before), after: cartSnapshot(cart, after) });
  });
}

/** Sets the units of a line of the owner's cart (0 removes it), as cart.update_item does. */
export function setWebCartLine(db: Db, who: WebWrite, variantId: string, units: number): Promise<void> {
  return webWrite(db, 'storefront.cart', who, async (tx, audit) => {
    const cart = await openWebCart(tx, who.ownerId);
    if (!cart) return;
    await lockOpenCart(tx, who.ownerId, cart.id);
    const before = await cartLines(tx, cart.id);
    await setCartLine(tx, cart.id, { variantId }, units);
    audit({ entityType: 'cart', entityId: cart.id, before: cartSnapshot(cart, before), after: cartSnapshot(cart, await cartLines(tx, cart.id)) });
  });
}

/** Keeps a discount code on the owner's cart (null removes it): refused with 422 discount_unavailable when it cannot be used now. */
export function setWebCartDiscount(db: Db, who: WebWrite, code: string | null): Promise<void> {
  return webWrite(db, 'storefront.cart', who, async (tx, audit) => {
    const found = await openWebCart(tx, who.ownerId);
    if (!found) return;
    const { cart } = await lockOpenCart(tx, who.ownerId, found.id);
    const discountCode = code === null ? null : (await usableDiscount(tx, normalizeCode(code))).code;
    const lines: CartLine[] = await cartLines(tx, cart.id);
    const after = await tx.cart.update({ where: { id: cart.id }, data: { discountCode } });
    audit({ entityType: 'cart', entityId: cart.id, before: cartSnapshot(cart, lines), after: cartSnapshot(after, lines) });
  });
}

/** The order would cost another total than the one the shopper saw on the checkout page: nothing was placed. */
export class PriceChanged extends Error {}

/**
 * Checks the owner's cart out with placeOrder, exactly as checkout.create_order does but with channel `web`
 * (isAiGenerated false, no agent name); its discount code is the one kept on the cart. `expectedTotal` is the total
 * the checkout page showed: an order priced otherwise (a price or the shipping changed meanwhile) is rolled back, so
 * the shopper never pays what they were not shown.
 */
export function checkOutWebCart(db: Db, who: WebWrite, cartId: string, contact: Contact, expectedTotal: number, setup: CheckoutSetup) {
  return webWrite(db, 'storefront.checkout', who, async (tx, audit) => {
    const cart = await tx.cart.findUnique({ where: { id: cartId }, select: { discountCode: true } });
    const placed = await placeOrder(tx, { keyId: who.ownerId, agentName: null, channel: 'web' }, cartId, contact, cart?.discountCode ?? undefined, setup);
    if (placed.money.totalDkk !== expectedTotal) throw new PriceChanged(`the order totals ${placed.money.totalDkk}, the page showed ${expectedTotal}`);
    audit({
      entityType: 'order',
      entityId: placed.order.id,
      before: null,
      after: placed.orderSnapshot,
      meta: { cartId, stockTaken: placed.taken.map((t) => ({ productId: t.productId, variantId: t.variantId, quantity: t.quantity })), discountCode: placed.discountCode },
    });
    audit({ entityType: 'cart', entityId: cartId, before: placed.cartBefore, after: placed.cartAfter });
    return placed;
  });
}

/**
 * A UCP checkout as its payment page on the storefront shows it (the page's signed link is the only way there), or
 * null when there is no such session.
 */
export async function protocolSessionView(db: Db, sessionId: string, base: string): Promise<SessionView | null> {
  const row = await db.checkoutSession.findUnique({ where: { id: sessionId } });
  return row && row.protocol === 'ucp' ? viewSession(db, row, base) : null;
}

/**
 * The buyer completes a UCP checkout on its payment page (its continue_url): the very completion the protocol's
 * own makes (completeSession: stock never oversold, the codes counted, the order with the protocol's channel and the
 * session's id, the session completed in the same statement), for the platform's key the session belongs to, paid
 * with the shop's own provider (`setup`, as a storefront checkout). 409-style PriceChanged when the total is not the
 * one the page showed. `email`, the buyer's, is given to a checkout that has none first. Audited as
 * `storefront.checkout_session`.
 */
export function completeProtocolSession(db: Db, who: WebWrite, sessionId: string, base: string, expectedTotal: number, setup: CheckoutSetup, email?: string) {
  return webWrite(db, 'storefront.checkout_session', who, async (tx, audit) => {
    const session = await tx.checkoutSession.findUnique({ where: { id: sessionId }, select: { apiKeyId: true, protocol: true } });
    if (!session || session.protocol !== 'ucp') throw new AppError('not_found', `No checkout session with id "${sessionId}".`);
    const key = await tx.apiKey.findUnique({ where: { id: session.apiKeyId }, select: { name: true } });
    const owner = { keyId: session.apiKeyId, agentName: key?.name ?? null };
    // The e-mail the buyer typed, when the checkout came without one: set first, in the same transaction.
    const given = email === undefined ? null : await addBuyerEmail(tx, owner, sessionId, 'ucp', email);
    const completion = await completeSession(tx, owner, sessionId, 'ucp', base, new Date(), setup.payments, setup.email);
    const { after, placed, view } = completion;
    const before = given?.before ?? completion.before;
    // Thrown after the completion's statements were queued: the transaction then ends without them, changing nothing.
    const unpayable = notPayableByBuyer(view);
    if (unpayable) throw unpayable;
    if (view.totals.total !== expectedTotal) throw new PriceChanged(`the order totals ${view.totals.total}, the page showed ${expectedTotal}`);
    for (const entry of completedOrderEntries(sessionId, placed)) audit(entry);
    audit({ entityType: 'checkout_session', entityId: sessionId, before: sessionSnapshot(before), after: sessionSnapshot(after), meta: { orderId: placed.order.id } });
    return placed;
  });
}

/** What the order page shows of an order: status, lines, totals, payment and shipment. */
export function webOrder(db: Db, orderId: string) {
  return db.order.findUnique({
    where: { id: orderId },
    select: {
      id: true, status: true, email: true, createdAt: true, currency: true, paymentMethod: true, shippingName: true, shippingAddress: true,
      shippingZip: true, shippingCity: true, subtotalDkk: true, discountDkk: true, discountCode: true, shippingDkk: true, totalDkk: true,
      vatOere: true, carrier: true, trackingNumber: true, trackingUrl: true, shippedAt: true, updatedAt: true,
      items: { orderBy: { id: 'asc' }, select: { productName: true, variantAttributes: true, unitPriceDkk: true, quantity: true } },
    },
  });
}

export type WebOrder = NonNullable<Awaited<ReturnType<typeof webOrder>>>;
