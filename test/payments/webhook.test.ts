// Stripe's events drive the order (docs/payments.md, "Events to statuses"): signed events from the fake Stripe API,
// posted to the webhook route, checked against the order, its audit entries, its outbox events, stock and discount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { okResult } from '../helpers/calls.ts';
import { makeDiscount } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';
import { createTestApp } from '../helpers/app.ts';
import { paymentsWorld, sessionOf, stripeEnv, WEBHOOK_PATH, type PaymentsWorld } from './setup.ts';

let w: PaymentsWorld;
beforeAll(async () => {
  w = await paymentsWorld();
});
afterAll(() => w.close());

const stockOf = async (productId: string) => Number((await w.t.db.productVariant.findFirstOrThrow({ where: { productId } })).stock);
const statusEvents = (orderId: string) =>
  w.t.db.webhookEvent.findMany({ where: { entityId: orderId, type: 'order.status_changed' }, orderBy: { sequence: 'asc' } });
const stripeAudits = (orderId: string) => w.t.db.auditEntry.findMany({ where: { entityId: orderId, tool: 'payments.stripe_webhook' }, orderBy: { at: 'asc' } });

async function outcome(event: Record<string, unknown>): Promise<string> {
  const res = await w.deliver(event);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().outcome as string;
}

describe('a payment', () => {
  it('checkout.session.completed (paid) makes the order paid with paidAt, the method and the payment intent, audited, with its event', async () => {
    const placed = await w.checkout();
    const { session, intent } = w.stripe.pay(sessionOf(w.stripe, placed.orderId).id as string, 'mobilepay');
    const event = w.stripe.event('checkout.session.completed', session);
    expect(await outcome(event)).toBe('applied');
    const order = await w.order(placed.orderId);
    expect(order).toMatchObject({ status: 'paid', paymentMethod: 'mobilepay', stripePaymentIntentId: intent.id, paidAt: expect.any(String) });
    const [audit] = await stripeAudits(placed.orderId);
    expect(audit).toMatchObject({ apiKeyId: null, meta: { actor: 'stripe', stripeEventId: event.id, stripeEventType: 'checkout.session.completed' } });
    expect((audit.before as { status: string }).status).toBe('pending_payment');
    expect((audit.after as { status: string }).status).toBe('paid');
    const events = await statusEvents(placed.orderId);
    expect(events.map((e) => (e.data as { object: { status: string } }).object.status)).toEqual(['paid']);
  });

  it('payment_intent.succeeded after the session event changes nothing more; a replayed event id changes nothing at all', async () => {
    const { orderId, intentId } = await w.paidOrder();
    const intent = w.stripe.intents.get(intentId)!;
    expect(await outcome(w.stripe.event('payment_intent.succeeded', intent))).toBe('ignored');
    const refund = w.stripe.event('charge.refunded', { ...w.stripe.charges.get(intent.latest_charge as string)!, amount_refunded: 1000 });
    expect(await outcome(refund)).toBe('applied');
    const before = await w.order(orderId);
    const audits = (await stripeAudits(orderId)).length;
    expect(await outcome(refund)).toBe('duplicate');
    expect(await w.order(orderId)).toEqual(before);
    expect((await stripeAudits(orderId)).length).toBe(audits);
    expect(await w.t.db.stripeEvent.count({ where: { id: refund.id as string } })).toBe(1);
  });

  it('a failed payment leaves the order pending_payment', async () => {
    const placed = await w.checkout();
    const session = sessionOf(w.stripe, placed.orderId);
    expect(await outcome(w.stripe.event('checkout.session.async_payment_failed', session))).toBe('ignored');
    expect(await outcome(w.stripe.event('payment_intent.payment_failed', {
      id: 'pi_test_failed', object: 'payment_intent', status: 'requires_payment_method', metadata: { orderId: placed.orderId }, payment_method_types: ['card'],
    }))).toBe('ignored');
    expect((await w.order(placed.orderId)).status).toBe('pending_payment');
  });

  it('an expired session cancels the order and returns its stock and discount use', async () => {
    const code = await makeDiscount(w.t.db, { type: 'percent', value: 10 });
    const stockBefore = await stockOf(w.product.id);
    const placed = await w.checkout(3, code.code);
    expect(await stockOf(w.product.id)).toBe(stockBefore - 3);
    expect(Number((await w.t.db.discountCode.findUniqueOrThrow({ where: { code: code.code } })).usageCount)).toBe(1);
    const expired = w.stripe.expire(sessionOf(w.stripe, placed.orderId).id as string);
    expect(await outcome(w.stripe.event('checkout.session.expired', expired))).toBe('applied');
    expect((await w.order(placed.orderId)).status).toBe('cancelled');
    expect(await stockOf(w.product.id)).toBe(stockBefore);
    expect(Number((await w.t.db.discountCode.findUniqueOrThrow({ where: { code: code.code } })).usageCount)).toBe(0);
    const [audit] = await stripeAudits(placed.orderId);
    expect(audit.meta).toMatchObject({ stockReturned: [{ productId: w.product.id, quantity: 3 }], discountUseReturned: code.code });
  });

  it('a paid session completed after the order was cancelled is logged as illegal and answered 200', async () => {
    const placed = await w.checkout();
    const sessionId = sessionOf(w.stripe, placed.orderId).id as string;
    expect(await outcome(w.stripe.event('checkout.session.expired', { ...sessionOf(w.stripe, placed.orderId), status: 'expired' }))).toBe('applied');
    const { session } = w.stripe.pay(sessionId);
    expect(await outcome(w.stripe.event('checkout.session.completed', session))).toBe('illegal_transition');
    expect((await w.order(placed.orderId)).status).toBe('cancelled');
  });
});

describe('refunds, disputes and reviews', () => {
  const chargeEvent = (chargeId: string, amountRefunded: number, created?: number) => {
    const charge = w.stripe.charges.get(chargeId)!;
    return w.stripe.event('charge.refunded', { ...charge, amount_refunded: amountRefunded, refunded: amountRefunded === charge.amount }, created);
  };

  it('charge.refunded in part, then in full: partial_refund then refunded, refundedDkk as Stripe reports it', async () => {
    const { orderId, chargeId } = await w.paidOrder();
    const total = (await w.order(orderId)).totalDkk as number;
    expect(await outcome(chargeEvent(chargeId, 2500))).toBe('applied');
    expect(await w.order(orderId)).toMatchObject({ status: 'partial_refund', refundedDkk: 2500, refundedAt: expect.any(String) });
    expect(await outcome(chargeEvent(chargeId, 4000))).toBe('applied');
    expect(await w.order(orderId)).toMatchObject({ status: 'partial_refund', refundedDkk: 4000 });
    // An older refund event arriving late never lowers what was refunded.
    expect(await outcome(chargeEvent(chargeId, 2500))).toBe('ignored');
    expect((await w.order(orderId)).refundedDkk).toBe(4000);
    expect(await outcome(chargeEvent(chargeId, total))).toBe('applied');
    expect(await w.order(orderId)).toMatchObject({ status: 'refunded', refundedDkk: total });
    expect((await statusEvents(orderId)).map((e) => (e.data as { object: { status: string } }).object.status)).toEqual(['paid', 'partial_refund', 'refunded']);
  });

  it('a dispute: created → disputed, closed won → completed', async () => {
    const { orderId, chargeId } = await w.paidOrder();
    expect(await outcome(w.stripe.event('charge.dispute.created', w.stripe.dispute(chargeId, 'needs_response')))).toBe('applied');
    expect(await w.order(orderId)).toMatchObject({ status: 'disputed', disputedAt: expect.any(String) });
    expect(await outcome(w.stripe.event('charge.dispute.closed', w.stripe.dispute(chargeId, 'won')))).toBe('applied');
    expect((await w.order(orderId)).status).toBe('completed');
  });

  it('a dispute lost → refunded with the disputed amount recorded', async () => {
    const { orderId, chargeId } = await w.paidOrder();
    expect(await outcome(w.stripe.event('charge.dispute.created', w.stripe.dispute(chargeId, 'needs_response')))).toBe('applied');
    expect(await outcome(w.stripe.event('charge.dispute.closed', w.stripe.dispute(chargeId, 'lost')))).toBe('applied');
    const order = await w.order(orderId);
    expect(order).toMatchObject({ status: 'refunded', refundedDkk: order.totalDkk });
  });

  it('a Radar review: opened → flagged_review, closed approved → paid with the first paidAt kept', async () => {
    const { orderId, intentId } = await w.paidOrder();
    const paidAt = (await w.order(orderId)).paidAt;
    expect(await outcome(w.stripe.event('review.opened', w.stripe.review(intentId, true, 'rule')))).toBe('applied');
    expect((await w.order(orderId)).status).toBe('flagged_review');
    expect(await outcome(w.stripe.event('review.closed', w.stripe.review(intentId, false, 'approved')))).toBe('applied');
    expect(await w.order(orderId)).toMatchObject({ status: 'paid', paidAt });
  });
});

describe('out of order', () => {
  it('a refund before the payment event: the order becomes paid, then partial_refund, and the late success changes nothing', async () => {
    const placed = await w.checkout();
    const { session, charge } = w.stripe.pay(sessionOf(w.stripe, placed.orderId).id as string, 'card');
    // Stripe copies no metadata onto the charge: the order is found through the payment intent's metadata.
    expect(await outcome(w.stripe.event('charge.refunded', { ...charge, amount_refunded: 1000 }))).toBe('applied');
    expect(await w.order(placed.orderId)).toMatchObject({ status: 'partial_refund', refundedDkk: 1000, paymentMethod: 'card', paidAt: expect.any(String) });
    expect((await stripeAudits(placed.orderId)).map((a) => (a.after as { status: string }).status)).toEqual(['paid', 'partial_refund']);
    expect(await outcome(w.stripe.event('checkout.session.completed', session))).toBe('ignored');
    expect((await w.order(placed.orderId)).status).toBe('partial_refund');
  });

  it('a review closed event before its opened event: the older opened event is stale and does not flag the order', async () => {
    const { orderId, intentId } = await w.paidOrder();
    const at = Math.floor(Date.now() / 1000);
    const opened = w.stripe.event('review.opened', w.stripe.review(intentId, true, 'rule'), at - 10);
    const closed = w.stripe.event('review.closed', w.stripe.review(intentId, false, 'approved'), at);
    expect(await outcome(closed)).toBe('ignored');
    expect(await outcome(opened)).toBe('stale');
    expect((await w.order(orderId)).status).toBe('paid');
  });

  it('a dispute closed (won) applied, then its older created event arrives: stale, the order stays completed', async () => {
    const { orderId, chargeId } = await w.paidOrder();
    const at = Math.floor(Date.now() / 1000);
    expect(await outcome(w.stripe.event('charge.dispute.created', w.stripe.dispute(chargeId, 'needs_response'), at - 20))).toBe('applied');
    const closed = w.stripe.event('charge.dispute.closed', w.stripe.dispute(chargeId, 'won'), at);
    const createdAgain = w.stripe.event('charge.dispute.created', w.stripe.dispute(chargeId, 'needs_response'), at - 10);
    expect(await outcome(closed)).toBe('applied');
    expect(await outcome(createdAgain)).toBe('stale');
    expect((await w.order(orderId)).status).toBe('completed');
  });
});

describe('the route', () => {
  it('refuses a bad signature with 401 invalid_signature and changes nothing', async () => {
    const placed = await w.checkout();
    const { session } = w.stripe.pay(sessionOf(w.stripe, placed.orderId).id as string);
    const event = w.stripe.event('checkout.session.completed', session);
    const forged = await w.deliver(event, { secret: 'whsec_notTheSecret' });
    expect(forged.statusCode).toBe(401);
    const res = await w.t.app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(event) });
    expectProblem(res, 401, 'invalid_signature');
    const old = await w.deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(old.statusCode).toBe(401);
    // The signed bytes changed after signing.
    const { payload, headers } = w.stripe.signed(event);
    const tampered = await w.t.app.inject({ method: 'POST', url: WEBHOOK_PATH, headers, payload: payload.replace('"paid"', '"unpaid"') });
    expect(tampered.statusCode).toBe(401);
    expect((await w.order(placed.orderId)).status).toBe('pending_payment');
    expect(await w.t.db.stripeEvent.count({ where: { id: event.id as string } })).toBe(0);
    // The genuine delivery still applies afterwards.
    expect(await outcome(event)).toBe('applied');
  });

  it('answers 200 unknown_order for an event of no order of this shop, and unhandled for other types', async () => {
    expect(await outcome(w.stripe.event('payment_intent.succeeded', { id: 'pi_test_elsewhere', object: 'payment_intent', status: 'succeeded', metadata: {}, payment_method_types: ['card'] })))
      .toBe('unknown_order');
    expect(await outcome(w.stripe.event('customer.created', { id: 'cus_test_1', object: 'customer' }))).toBe('unhandled');
  });

  it('is not behind the API-key guard, and refuses a body above its limit', async () => {
    const big = await w.t.app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' }, payload: 'x'.repeat(300 * 1024) });
    expect(big.statusCode).toBe(413);
  });
});

describe('concurrently with an admin', () => {
  it('a paid event and orders.update_status → cancelled on the same order: one wins, the other sees its result, nothing is lost', async () => {
    for (let round = 0; round < 5; round++) {
      const placed = await w.checkout();
      const { session } = w.stripe.pay(sessionOf(w.stripe, placed.orderId).id as string);
      const stockBefore = await stockOf(w.product.id);
      const [delivered, admin] = await Promise.all([
        w.deliver(w.stripe.event('checkout.session.completed', session)),
        w.t.call('orders.update_status', { orderId: placed.orderId, status: 'cancelled' }, w.key),
      ]);
      expect(delivered.statusCode).toBe(200);
      const order = await w.order(placed.orderId);
      const events = (await statusEvents(placed.orderId)).map((e) => (e.data as { object: { status: string } }).object.status);
      if (admin.statusCode === 200) {
        // Either the cancel came first (the payment is then illegal and logged) or the payment came first and the
        // admin cancelled the paid order (paid → cancelled is legal): both changes are in the history.
        expect(order.status).toBe('cancelled');
        expect(events.at(-1)).toBe('cancelled');
        expect(stockBefore).toBeLessThan(await stockOf(w.product.id));
      } else {
        expect(admin.statusCode).toBe(422);
        expect(order.status).toBe('paid');
      }
      expect(events.length).toBe(delivered.json().outcome === 'applied' ? (admin.statusCode === 200 ? 2 : 1) : 1);
    }
  });

  it('orders.update_status by an admin right after the payment builds on it (paid → processing)', async () => {
    const { orderId } = await w.paidOrder();
    expect(okResult(await w.t.call('orders.update_status', { orderId, status: 'processing' }, w.key))).toEqual({ id: orderId, status: 'processing' });
  });
});

describe('the route’s rate limit', () => {
  it('counts deliveries per client address with the per-key budget: past it, 429', async () => {
    const t = await createTestApp({ env: { ...stripeEnv(w.stripe), RATE_LIMIT_AUTH_MAX: '3' } });
    try {
      const post = () => t.app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' }, payload: '{}' });
      for (let i = 0; i < 3; i++) expect((await post()).statusCode).toBe(401);
      expectProblem(await post(), 429, 'rate_limited');
    } finally {
      await t.close();
    }
  });
});
