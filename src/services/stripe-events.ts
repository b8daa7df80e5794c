import type { FastifyBaseLogger } from 'fastify';
import type Stripe from 'stripe';
import type { Config, EmailConfig } from '../config.ts';
import { inTransaction, type Db, type Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import type { OrderStatus } from '../domain/order-transitions.ts';
import { decidePayment, type PayableOrder, type PaymentFacts, type PaymentTopic } from '../domain/stripe-events.ts';
import { recordEvents } from '../events/outbox.ts';
import { changeOrderStatus, loadOrder } from './orders.ts';
import { orderIdOfPaymentIntent, paymentIntentFacts } from './payments.ts';

/** The `tool` of the audit entries Stripe's events write; their meta names the event (docs/payments.md). */
export const STRIPE_WEBHOOK_TOOL = 'payments.stripe_webhook';

/** Where an event points: the order named in metadata, the payment intent, and the method a charge shows. */
type Refs = { orderId: string | null; paymentIntentId: string | null; method: string | null };
type Reading = { facts: PaymentFacts; refs: Refs };

const idOf = (ref: string | { id: string } | null | undefined): string | null => (ref === null || ref === undefined ? null : typeof ref === 'string' ? ref : ref.id);
const orderIdIn = (metadata: Stripe.Metadata | null | undefined): string | null => metadata?.orderId ?? null;

/** The facts of the event types docs/payments.md maps; null for any other type (answered 200, nothing done). */
export function readEvent(event: Stripe.Event): Reading | null {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const s = event.data.object;
      const refs = { orderId: orderIdIn(s.metadata) ?? s.client_reference_id, paymentIntentId: idOf(s.payment_intent), method: null };
      if (s.status === 'expired') return { facts: { topic: 'payment', state: 'expired', sessionId: s.id }, refs };
      const paid = s.payment_status === 'paid' || s.payment_status === 'no_payment_required';
      return { facts: { topic: 'payment', state: paid ? 'succeeded' : event.type === 'checkout.session.async_payment_failed' ? 'failed' : 'processing' }, refs };
    }
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const pi = event.data.object;
      const state = pi.status === 'succeeded' ? 'succeeded' : pi.status === 'processing' ? 'processing' : 'failed';
      return { facts: { topic: 'payment', state }, refs: { orderId: orderIdIn(pi.metadata), paymentIntentId: pi.id, method: null } };
    }
    case 'review.opened':
    case 'review.closed': {
      const r = event.data.object;
      return { facts: { topic: 'review', open: r.open, approved: r.closed_reason === 'approved' || r.reason === 'approved' }, refs: { orderId: null, paymentIntentId: idOf(r.payment_intent), method: null } };
    }
    case 'charge.refunded': {
      const c = event.data.object;
      return {
        facts: { topic: 'refund', amountRefunded: c.amount_refunded, fullyRefunded: c.refunded },
        refs: { orderId: orderIdIn(c.metadata), paymentIntentId: idOf(c.payment_intent), method: c.payment_method_details?.type ?? null },
      };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const d = event.data.object;
      const state = d.status === 'won' || d.status === 'warning_closed' || d.status === 'prevented' ? 'won' : d.status === 'lost' ? 'lost' : 'open';
      return { facts: { topic: 'dispute', state, amount: d.amount }, refs: { orderId: orderIdIn(d.metadata), paymentIntentId: idOf(d.payment_intent), method: null } };
    }
    default:
      return null;
  }
}

const payableOf = (o: { status: OrderStatus; totalDkk: bigint; refundedDkk: bigint; stripeCheckoutSessionId: string | null }): PayableOrder => ({
  status: o.status, totalDkk: Number(o.totalDkk), refundedDkk: Number(o.refundedDkk), stripeCheckoutSessionId: o.stripeCheckoutSessionId,
});

export type EventOutcome = 'applied' | 'ignored' | 'stale' | 'illegal_transition' | 'unknown_order' | 'unhandled' | 'duplicate';

/**
 * Applies one verified Stripe event (docs/payments.md). Stripe is asked first, outside any transaction, for what the
 * event does not carry (the order behind a payment intent, the payment method). Then, in one transaction: the
 * event id is claimed (a redelivery finds it and changes nothing), the order row locked (changeOrderStatus; an
 * admin's orders.update_status queues on the same lock), the decision taken from the locked row, each move made
 * through the state machine with its audit entry (meta.stripeEventId) and the service's own webhook events.
 */
export async function applyStripeEvent(db: Db, config: Config, event: Stripe.Event, log: FastifyBaseLogger): Promise<EventOutcome> {
  const reading = readEvent(event);
  const topic: PaymentTopic | 'other' = reading?.facts.topic ?? 'other';
  let orderId: string | null = null;
  let method: string | null = reading?.refs.method ?? null;
  if (reading) {
    const { refs } = reading;
    orderId = refs.orderId ?? (refs.paymentIntentId ? await orderIdOfPaymentIntent(db, refs.paymentIntentId) : null);
    const order = orderId === null ? null : await db.order.findUnique({ where: { id: orderId } });
    if (order === null) orderId = null;
    // Asked only when it can matter: the order behind a payment intent Stripe holds our id for
    // (payment_intent_data.metadata), or the method of a payment this event records.
    const recordsPayment = order !== null && decidePayment(reading.facts, payableOf(order)).recordsPayment;
    if (refs.paymentIntentId && (order === null || (recordsPayment && method === null)) && config.payments.stripe) {
      const intent = await paymentIntentFacts(config, refs.paymentIntentId);
      orderId ??= intent?.orderId ?? null;
      method ??= intent?.method ?? null;
    }
  }
  const createdAt = new Date(event.created * 1000);

  return inTransaction(db, async (tx) => {
    const claimed = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO "StripeEvent" (id, type, "orderId", topic, "stripeCreatedAt", outcome)
      VALUES (${event.id}, ${event.type}, ${orderId}, ${topic}, ${createdAt}, 'received')
      ON CONFLICT (id) DO NOTHING RETURNING id`;
    if (claimed.length === 0) return 'duplicate';
    const outcome = await decideAndApply(tx, event, reading, orderId, method, createdAt, log, config.email);
    await tx.$executeRaw`UPDATE "StripeEvent" SET outcome = ${outcome} WHERE id = ${event.id}`;
    return outcome;
  });
}

async function decideAndApply(
  tx: Tx, event: Stripe.Event, reading: Reading | null, orderId: string | null, method: string | null, createdAt: Date, log: FastifyBaseLogger,
  email: EmailConfig | undefined,
): Promise<EventOutcome> {
  if (!reading) return 'unhandled';
  if (orderId === null) {
    log.warn({ stripeEvent: event.id, type: event.type }, 'Stripe event for no order of this shop; ignored');
    return 'unknown_order';
  }
  const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Order" WHERE id = ${orderId} FOR UPDATE`;
  if (!locked) return 'unknown_order';
  const { facts, refs } = reading;
  // A review or dispute flips back and forth: an event older than one of the same topic already received (applied
  // or not) says what Stripe's object was before, never what it is now.
  if (facts.topic === 'review' || facts.topic === 'dispute') {
    const [newer] = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "StripeEvent"
      WHERE "orderId" = ${orderId} AND topic = ${facts.topic} AND id <> ${event.id} AND "stripeCreatedAt" > ${createdAt} LIMIT 1`;
    if (newer) return 'stale';
  }
  const before = await loadOrder(tx, orderId);
  const decision = decidePayment(facts, payableOf(before));
  const meta = { actor: 'stripe', stripeEventId: event.id, stripeEventType: event.type };
  if (decision.outcome === 'illegal_transition') {
    log.warn({ stripeEvent: event.id, type: event.type, order: orderId, status: before.status, detail: decision.detail }, 'Stripe event asks for an illegal transition; ignored');
    return 'illegal_transition';
  }
  const fields = {
    ...(decision.recordsPayment && refs.paymentIntentId ? { stripePaymentIntentId: refs.paymentIntentId } : {}),
    ...(decision.recordsPayment && method ? { paymentMethod: method } : {}),
    ...(decision.refundedDkk !== null ? { refundedDkk: BigInt(decision.refundedDkk) } : {}),
  };
  if (decision.steps.length === 0 && Object.keys(fields).length === 0) return 'ignored';
  if (Object.keys(fields).length > 0) await tx.order.update({ where: { id: orderId }, data: fields });

  const changes = [];
  let current: unknown = plainJson(before);
  for (const status of decision.steps) {
    const moved = await changeOrderStatus(tx, orderId, status, { email });
    const after = plainJson(moved.after);
    changes.push({ entityType: 'order', entityId: orderId, before: current, after, meta: { ...meta, ...moved.meta } });
    current = after;
  }
  // Only amounts or references changed (a further partial refund): audited too, without a status event.
  if (changes.length === 0) changes.push({ entityType: 'order', entityId: orderId, before: current, after: plainJson(await loadOrder(tx, orderId)), meta });
  for (const change of changes) {
    await tx.auditEntry.create({
      data: { tool: STRIPE_WEBHOOK_TOOL, apiKeyId: null, entityType: change.entityType, entityId: change.entityId, before: change.before ?? undefined, after: change.after ?? undefined, meta: change.meta },
    });
  }
  await recordEvents(tx, changes);
  return 'applied';
}
