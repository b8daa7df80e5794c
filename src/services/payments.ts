import Stripe from 'stripe';
import type { Config, EmailConfig } from '../config.ts';
import { inTransaction, queryRows, type Db, type DbClient, type Tx } from '../db/client.ts';
import { assertTransition, type OrderStatus } from '../domain/order-transitions.ts';
import { formatAmount } from '../domain/payment.ts';
import { AppError } from '../errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { changeOrderStatus, loadOrder } from './orders.ts';

// Stripe, on its official SDK (docs/payments.md): Checkout Sessions for placed orders and refunds. Every call is made
// outside any transaction of ours, so no row lock waits on Stripe.

type StripeSettings = NonNullable<Config['payments']['stripe']>;

const clients = new WeakMap<StripeSettings, Stripe>();

/** The SDK client for these settings (one per process); STRIPE_API_URL points it at a fake in tests. */
export function stripeClient(config: Config): Stripe {
  const settings = config.payments.stripe;
  if (!settings) throw new AppError('service_unavailable', 'Stripe is not configured on this service (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET).');
  let client = clients.get(settings);
  if (!client) {
    const api = settings.apiUrl;
    client = new Stripe(settings.secretKey, {
      // One quick retry (the SDK sends the same idempotency key), then the caller decides: a checkout keeps its
      // order and says how to get the link later.
      maxNetworkRetries: 1,
      timeout: 10_000,
      telemetry: false,
      appInfo: { name: 'agent-api' },
      ...(api ? { host: api.hostname, port: api.port || (api.protocol === 'http:' ? 80 : 443), protocol: api.protocol === 'http:' ? 'http' : 'https' } : {}),
    });
    clients.set(settings, client);
  }
  return client;
}

/** Stripe's failures as problems: unreachable or refusing, it is the upstream that failed. */
export function upstreamProblem(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof Stripe.errors.StripeConnectionError) return new AppError('upstream_error', 'Stripe could not be reached; retry later.');
  if (err instanceof Stripe.errors.StripeError) return new AppError('upstream_error', `Stripe refused the request: ${err.message}`);
  return new AppError('upstream_error', 'The call to Stripe failed; retry later.');
}

async function atStripe<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw upstreamProblem(err);
  }
}

/** Sent with the transaction's BEGIN (no round trip of its own): its COMMIT does not wait for the WAL flush. */
const ASYNC_COMMIT = { sql: Prisma.sql`SET LOCAL synchronous_commit TO OFF`, prepareAs: 'async_commit' };

export type PaymentLink = { provider: 'stripe'; url: string; expiresAt: string; sessionId: string };

type Amount = bigint | string | number;
/** What a Checkout Session is made of: the order's amounts and lines, read in one statement. */
export type OrderForSession = {
  id: string; status: string; email: string; currency: string; totalDkk: number; shippingDkk: number; discountDkk: number;
  discountCode: string | null; stripeCheckoutSessionId: string | null;
  items: { productName: string; unitPriceDkk: number; quantity: number; variantAttributes: unknown }[];
};
type SessionRow = Omit<OrderForSession, 'totalDkk' | 'shippingDkk' | 'discountDkk'> & { totalDkk: Amount; shippingDkk: Amount; discountDkk: Amount };

/** The order and its lines in one round trip (it runs on every Stripe checkout, after the commit). */
async function orderForSession(db: DbClient, orderId: string): Promise<OrderForSession> {
  const [row] = await queryRows<SessionRow>(db, Prisma.sql`
    SELECT o.id, o.status, o.email, o.currency, o."totalDkk", o."shippingDkk", o."discountDkk", o."discountCode", o."stripeCheckoutSessionId",
           COALESCE((SELECT json_agg(json_build_object('productName', i."productName", 'unitPriceDkk', i."unitPriceDkk", 'quantity', i.quantity,
                                                       'variantAttributes', i."variantAttributes") ORDER BY i.id)
                     FROM "OrderItem" i WHERE i."orderId" = o.id), '[]'::json) AS items
    FROM "Order" o WHERE o.id = ${orderId}`, { prepareAs: 'order_for_session' });
  if (!row) throw new AppError('not_found', `No order with id "${orderId}".`);
  return { ...row, totalDkk: Number(row.totalDkk), shippingDkk: Number(row.shippingDkk), discountDkk: Number(row.discountDkk) };
}

/** A line's name as the buyer saw it: the product, and the variant's option values when it has any. */
function lineName(item: OrderForSession['items'][number]): string {
  const options = item.variantAttributes !== null && typeof item.variantAttributes === 'object' && !Array.isArray(item.variantAttributes)
    ? Object.values(item.variantAttributes).filter((v) => typeof v === 'string')
    : [];
  return options.length === 0 ? item.productName : `${item.productName} (${options.join(' / ')})`;
}

/**
 * The order's lines as the service priced them (øre, VAT included): each item, and shipping. Checkout has no
 * negative lines, so an order with a discount is one line of its total naming the items and the code; so is any
 * order whose lines would not add up to its total, or that has more lines than Checkout takes. Either way the buyer
 * is charged exactly the order's total.
 */
export function lineItems(order: OrderForSession): Stripe.Checkout.SessionCreateParams.LineItem[] {
  const currency = order.currency.toLowerCase();
  const line = (name: string, amount: number, quantity: number, description?: string) => ({
    price_data: { currency, unit_amount: Number(amount), product_data: { name, ...(description ? { description } : {}) } },
    quantity: Number(quantity),
  });
  const lines = order.items.map((i) => line(lineName(i), i.unitPriceDkk, i.quantity));
  if (order.shippingDkk > 0) lines.push(line('Shipping', order.shippingDkk, 1));
  const sum = lines.reduce((n, l) => n + l.price_data.unit_amount * l.quantity, 0);
  if (order.discountDkk === 0 && sum === order.totalDkk && lines.length <= 100) return lines;
  const items = order.items.map((i) => `${i.quantity} × ${lineName(i)}`).join(', ');
  const discount = order.discountCode ? `; discount ${order.discountCode} −${formatAmount(order.discountDkk)}` : '';
  return [line(`Order ${order.id}`, order.totalDkk, 1, `${items}${discount}`.slice(0, 500))];
}

/**
 * Where Stripe sends the buyer back to, told how it went: `returnTo` (the storefront's signed order page, for an order
 * placed there), else the storefront's home naming the order.
 */
function returnUrl(config: Config, orderId: string, returnTo: string | undefined, outcome: 'paid' | 'cancelled'): string {
  if (returnTo !== undefined) return `${returnTo}${returnTo.includes('?') ? '&' : '?'}payment=${outcome}`;
  const base = config.publicBaseUrl ?? `http://localhost:${config.port}`;
  return `${base}/?order=${encodeURIComponent(orderId)}&payment=${outcome}`;
}

function linkOf(session: Stripe.Checkout.Session): PaymentLink {
  if (!session.url) throw new AppError('upstream_error', `Stripe returned Checkout Session ${session.id} without a URL.`);
  return { provider: 'stripe', url: session.url, expiresAt: new Date(session.expires_at * 1000).toISOString(), sessionId: session.id };
}

/**
 * The Checkout Session the buyer pays the order in: the open one stored on the order, else a new one. The
 * idempotency key is derived from the order (and the session it replaces), so a retried checkout or two concurrent
 * calls get the same session, never two. 409 order_not_payable unless the order is pending_payment.
 */
export async function openCheckoutSession(db: Db, config: Config, orderId: string, returnTo?: string): Promise<PaymentLink> {
  const stripe = stripeClient(config);
  const order = await orderForSession(db, orderId);
  assertPayable(order);
  const previous = order.stripeCheckoutSessionId;
  if (previous !== null) {
    const session = await atStripe(() => stripe.checkout.sessions.retrieve(previous));
    if (session.status === 'open') return linkOf(session);
    if (session.status === 'complete') {
      throw new AppError('order_not_payable', `Order ${orderId} was paid at Stripe; it becomes paid when Stripe's event arrives.`);
    }
  }
  const session = await atStripe(() => stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: lineItems(order),
    customer_email: order.email,
    client_reference_id: order.id,
    metadata: { orderId: order.id },
    payment_intent_data: { metadata: { orderId: order.id } },
    allowed_payment_method_types: [...(config.payments.stripe?.paymentMethods ?? ['card'])],
    success_url: returnUrl(config, order.id, returnTo, 'paid'),
    cancel_url: returnUrl(config, order.id, returnTo, 'cancelled'),
  }, { idempotencyKey: previous === null ? `order-${order.id}-checkout` : `order-${order.id}-checkout-after-${previous}` }));
  // Only while the order still awaits payment and nobody stored another session meanwhile. Committed without
  // waiting for the WAL flush (that wait was most of a Stripe checkout's extra time): a crash that loses this write
  // loses nothing, as the same idempotency key finds the same session again, and an order without a stored session
  // is cancelled by whichever of its sessions expires.
  await inTransaction(db, async (tx) => {
    await queryRows(tx, Prisma.sql`
      UPDATE "Order" SET "stripeCheckoutSessionId" = ${session.id}
      WHERE id = ${order.id} AND status = 'pending_payment' AND "stripeCheckoutSessionId" IS NOT DISTINCT FROM ${previous}::text`,
    { prepareAs: 'store_checkout_session', commits: true });
  }, ASYNC_COMMIT);
  return linkOf(session);
}

export function assertPayable(order: { id: string; status: string }): void {
  if (order.status !== 'pending_payment') {
    throw new AppError('order_not_payable', `Order ${order.id} is ${order.status}; only a pending_payment order can be paid.`);
  }
}

/** What orders.refund may still give back: the total less what was refunded; 422 otherwise. */
export function refundableAmount(order: { id: string; status: string; totalDkk: bigint; refundedDkk: bigint }, requested: number | undefined): number {
  const left = Number(order.totalDkk - order.refundedDkk);
  if (left <= 0) throw new AppError('refund_exceeds_paid', `Order ${order.id} has nothing left to refund.`);
  if (requested !== undefined && requested > left) {
    throw new AppError('refund_exceeds_paid', `Order ${order.id} can be refunded at most ${left} øre (${formatAmount(left)}); ${requested} requested.`);
  }
  return requested ?? left;
}

/**
 * Asks Stripe to refund part of the order's payment. The idempotency key names the order, what was refunded before
 * and the amount, so a retried call makes one refund; the order moves when Stripe's charge.refunded arrives.
 */
export async function refundAtStripe(
  config: Config,
  order: { id: string; stripePaymentIntentId: string; refundedDkk: bigint },
  amountDkk: number,
  reason: string | undefined,
): Promise<{ refundId: string; status: string | null }> {
  const stripe = stripeClient(config);
  try {
    const refund = await stripe.refunds.create(
      { payment_intent: order.stripePaymentIntentId, amount: amountDkk, metadata: { orderId: order.id, ...(reason ? { reason } : {}) } },
      { idempotencyKey: `order-${order.id}-refund-${order.refundedDkk}-${amountDkk}` },
    );
    return { refundId: refund.id, status: refund.status };
  } catch (err) {
    // Stripe knows of refunds not yet reported to us: more than is left at Stripe is the same problem as here.
    if (err instanceof Stripe.errors.StripeInvalidRequestError && (err.code === 'amount_too_large' || err.code === 'charge_already_refunded')) {
      throw new AppError('refund_exceeds_paid', `Stripe refused the refund of order ${order.id}: ${err.message}`);
    }
    throw upstreamProblem(err);
  }
}

/**
 * The payment method type (card, mobilepay …) and the order id Stripe holds for a payment intent; null when Stripe
 * knows no such payment intent (another account's event). Other failures throw: the event is answered 5xx and
 * Stripe delivers it again.
 */
export async function paymentIntentFacts(config: Config, paymentIntentId: string): Promise<{ method: string | null; orderId: string | null } | null> {
  let intent: Stripe.PaymentIntent;
  try {
    intent = await stripeClient(config).paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge'] });
  } catch (err) {
    if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404) return null;
    throw err;
  }
  const charge = intent.latest_charge;
  const method = charge !== null && typeof charge === 'object' ? (charge.payment_method_details?.type ?? null) : (intent.payment_method_types.length === 1 ? intent.payment_method_types[0] : null);
  return { method, orderId: intent.metadata?.orderId ?? null };
}

/** The order a payment intent belongs to, as recorded when it was paid. */
export async function orderIdOfPaymentIntent(db: DbClient, paymentIntentId: string): Promise<string | null> {
  const row = await db.order.findFirst({ where: { stripePaymentIntentId: paymentIntentId }, select: { id: true } });
  return row?.id ?? null;
}

/** Statuses whose payment was taken and can be given back (not while disputed: the dispute decides). */
const REFUNDABLE: readonly OrderStatus[] = ['paid', 'flagged_review', 'processing', 'shipped', 'delivered', 'completed', 'partial_refund'];

export type RefundPlan = {
  before: Awaited<ReturnType<typeof loadOrder>>;
  amountDkk: number;
  /** Where the order goes once the refund is recorded: refunded when nothing is left, else partial_refund. */
  target: OrderStatus;
  /** Paid through Stripe: Stripe refunds, and its charge.refunded event moves the order. */
  viaStripe: boolean;
};

/**
 * Checks a refund of `requested` øre (default: all that is left) under the order's row lock: 404, 422 not_refundable,
 * 422 refund_exceeds_paid, 422 illegal_transition when the status it leads to is not a legal move from here.
 */
export async function planRefund(tx: Tx, orderId: string, requested: number | undefined): Promise<RefundPlan> {
  const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Order" WHERE id = ${orderId} FOR UPDATE`;
  if (!locked) throw new AppError('not_found', `No order with id "${orderId}".`);
  const before = await loadOrder(tx, orderId);
  if (!REFUNDABLE.includes(before.status)) {
    throw new AppError('not_refundable', `Order ${orderId} is ${before.status}; refundable are ${REFUNDABLE.join(', ')}.`);
  }
  const amountDkk = refundableAmount(before, requested);
  const target: OrderStatus = before.refundedDkk + BigInt(amountDkk) >= before.totalDkk ? 'refunded' : 'partial_refund';
  if (target !== before.status) assertTransition(before.status, target);
  return { before, amountDkk, target, viaStripe: before.stripePaymentIntentId !== null };
}

/** A refund paid outside the service (manual): the amount recorded and the order moved at once. */
export async function recordManualRefund(tx: Tx, plan: RefundPlan, email: EmailConfig | undefined) {
  const { before, amountDkk, target } = plan;
  await tx.order.update({ where: { id: before.id }, data: { refundedDkk: { increment: BigInt(amountDkk) } } });
  if (target !== before.status) await changeOrderStatus(tx, before.id, target, { email });
  return loadOrder(tx, before.id);
}

/**
 * The event Stripe signed, from the raw body and its Stripe-Signature header, with the SDK's check (HMAC-SHA256
 * under STRIPE_WEBHOOK_SECRET, signed at most 300 s ago, Stripe's default tolerance); 401 invalid_signature otherwise.
 */
export function verifiedStripeEvent(config: Config, payload: Buffer, signature: string | string[] | undefined): Stripe.Event {
  const secret = config.payments.stripe?.webhookSecret;
  if (!secret) throw new AppError('not_found', 'Stripe is not configured on this service.');
  if (typeof signature !== 'string') throw new AppError('invalid_signature', 'Send exactly one Stripe-Signature header.');
  try {
    return stripeClient(config).webhooks.constructEvent(payload, signature, secret);
  } catch {
    throw new AppError('invalid_signature', 'The Stripe-Signature does not match this payload and the webhook signing secret, or it is too old.');
  }
}

/**
 * What Stripe answered to an agent's SharedPaymentToken: paid (its PaymentIntent); the buyer's bank asks for
 * authentication first (3-D Secure: `action.url` is the page where the buyer passes it, then the completion is sent
 * again); or declined, in Stripe's words (`fraud` when Stripe declined it as fraudulent, lost or stolen).
 */
export type SharedTokenCharge =
  | { paid: true; intentId: string }
  | { paid: false; message: string; action: { intentId: string; url: string } }
  | { paid: false; message: string; action?: undefined; fraud: boolean };

/** A Stripe SharedPaymentToken id (`spt_…`): anything else is the platform's mistake, never sent to Stripe. */
const SHARED_TOKEN = /^spt_[A-Za-z0-9_]{1,255}$/;
export const isSharedPaymentToken = (token: string | undefined): token is string => token !== undefined && SHARED_TOKEN.test(token);

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const FRAUD_DECLINES = new Set(['fraudulent', 'lost_card', 'stolen_card', 'merchant_blacklist']);

/** A PaymentIntent as the charge's outcome (Stripe's object, read without the SDK's types: see chargeSharedToken). */
function outcomeOf(intent: unknown): SharedTokenCharge {
  const id = isRecord(intent) && typeof intent.id === 'string' ? intent.id : null;
  if (id === null || !isRecord(intent)) throw new AppError('upstream_error', 'Stripe answered the payment without a PaymentIntent id.');
  if (intent.status === 'succeeded') return { paid: true, intentId: id };
  const next = isRecord(intent.next_action) && isRecord(intent.next_action.redirect_to_url) ? intent.next_action.redirect_to_url.url : null;
  if (intent.status === 'requires_action' && typeof next === 'string') {
    return { paid: false, message: 'The buyer’s bank asks the buyer to confirm the payment (3-D Secure).', action: { intentId: id, url: next } };
  }
  return { paid: false, message: `The payment was not completed (Stripe status ${String(intent.status)}).`, fraud: false };
}

/**
 * Charges a granted SharedPaymentToken (agentic commerce, docs/agentic-checkout.md "ACP payment" and "UCP payment"):
 * one PaymentIntent created and confirmed with payment_method_data[shared_payment_granted_token]. The SDK's types
 * predate the parameter, so the call goes through its rawRequest. `idempotencyKey` names the platform's own request,
 * so a retry of it is answered by Stripe with the same PaymentIntent and never charges twice. `returnUrl`, when given,
 * lets the bank's authentication run as a redirect (Stripe then answers requires_action with redirect_to_url, which
 * is `action`); without it an intent that needs authentication is not completed. Made outside any row lock.
 */
export async function chargeSharedToken(
  config: Config,
  p: { amount: number; currency: string; token: string; idempotencyKey: string; metadata: Record<string, string>; returnUrl?: string },
): Promise<SharedTokenCharge> {
  const stripe = stripeClient(config);
  try {
    const intent: unknown = await stripe.rawRequest('post', '/v1/payment_intents', {
      amount: p.amount, currency: p.currency.toLowerCase(), confirm: true, payment_method_data: { shared_payment_granted_token: p.token }, metadata: p.metadata,
      ...(p.returnUrl ? { return_url: p.returnUrl } : {}),
    }, { idempotencyKey: p.idempotencyKey });
    return outcomeOf(intent);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeCardError) {
      return { paid: false, message: `The payment was declined: ${err.message}`, fraud: FRAUD_DECLINES.has(err.decline_code ?? '') };
    }
    // A token Stripe refuses (unknown, expired, used up, over its allowance) is the buyer's payment failing, not an
    // outage: it is declined like a card, and a new token can be tried.
    if (err instanceof Stripe.errors.StripeInvalidRequestError && err.param?.startsWith('payment_method_data') === true) {
      return { paid: false, message: `The payment token was refused: ${err.message}`, fraud: false };
    }
    throw upstreamProblem(err);
  }
}

/** Where a PaymentIntent that waited for the buyer's authentication stands now (the completion sent again after it). */
export async function sharedTokenChargeNow(config: Config, intentId: string): Promise<SharedTokenCharge> {
  return outcomeOf(await atStripe(() => stripeClient(config).paymentIntents.retrieve(intentId)));
}

/** Gives a SharedPaymentToken's payment back when the order it paid for could not be placed (best effort: logged by the caller). */
export async function refundSharedTokenCharge(config: Config, intentId: string): Promise<void> {
  await stripeClient(config).refunds.create({ payment_intent: intentId, metadata: { reason: 'checkout session could not be completed' } }, { idempotencyKey: `refund-${intentId}` });
}
