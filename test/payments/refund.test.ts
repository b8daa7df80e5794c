// orders.refund with manual payment and with Stripe (docs/payments.md, "Refunds"), and a checkout while Stripe cannot
// be reached (the order stays valid; orders.payment_link gets the link once Stripe answers again).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createCart, createProduct } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';
import { deadStripeUrl, startFakeStripe } from '../fakes/stripe-server.ts';
import { paymentsWorld, sessionOf, stripeEnv, type PaymentsWorld } from './setup.ts';

type Refund = { orderId: string; status: string; amountDkk: number; refundedDkk: number; pending: boolean; refundId: string | null; reason: string | null };

describe('orders.refund with manual payment', () => {
  let t: TestApp;
  let key: string;
  let slug: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = await t.key();
    slug = (await createProduct(t, key, { priceDkk: 10_000, stock: 100 })).slug;
  });
  afterAll(() => t.close());

  async function paidManualOrder(): Promise<{ orderId: string; totalDkk: number }> {
    const { cartId } = await createCart(t, key, [{ productSlug: slug, quantity: 2 }]);
    const placed = okResult<{ orderId: string; totalDkk: number; payment: Record<string, unknown> }>(await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, key));
    // manual behaves as before: no link, instructions only.
    expect(placed.payment).toEqual({ provider: 'manual', instructions: expect.stringContaining('awaits a manual payment') });
    expect(okResult(await t.call('orders.update_status', { orderId: placed.orderId, status: 'paid' }, key))).toMatchObject({ status: 'paid' });
    return placed;
  }

  const refund = (body: Record<string, unknown>, headers: Record<string, string> = {}) => t.call('orders.refund', body, key, { headers });
  const orderOf = async (orderId: string) => okResult<{ status: string; refundedDkk: number }>(await t.call('orders.get', { orderId }, key));

  it('needs confirm; a dry run changes nothing; a confirmed partial refund records it and moves the order', async () => {
    const { orderId } = await paidManualOrder();
    expectProblem(await refund({ orderId, amountDkk: 2500 }), 422, 'confirmation_required');
    const dry = await refund({ orderId, amountDkk: 2500, dryRun: true });
    expect(dry.json()).toMatchObject({ dryRun: true, result: { status: 'partial_refund', refundedDkk: 2500, pending: false } });
    expect(await orderOf(orderId)).toMatchObject({ status: 'paid', refundedDkk: 0 });
    const done = okResult<Refund>(await refund({ orderId, amountDkk: 2500, reason: 'Scratched lens', confirm: true }));
    expect(done).toEqual({ orderId, status: 'partial_refund', amountDkk: 2500, refundedDkk: 2500, pending: false, refundId: null, reason: 'Scratched lens' });
    expect(await orderOf(orderId)).toMatchObject({ status: 'partial_refund', refundedDkk: 2500 });
    const audit = await t.db.auditEntry.findFirstOrThrow({ where: { tool: 'orders.refund', entityId: orderId } });
    expect(audit.meta).toEqual({ refundDkk: 2500, reason: 'Scratched lens', provider: 'manual' });
  });

  it('replays with the same Idempotency-Key without refunding twice', async () => {
    const { orderId } = await paidManualOrder();
    const headers = { 'idempotency-key': `refund-${orderId}` };
    const first = await refund({ orderId, amountDkk: 1000, confirm: true }, headers);
    const again = await refund({ orderId, amountDkk: 1000, confirm: true }, headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(okResult(again)).toEqual(okResult(first));
    expect((await orderOf(orderId)).refundedDkk).toBe(1000);
  });

  it('refuses more than paid minus refunded (422 refund_exceeds_paid); the rest by default; then not_refundable', async () => {
    const { orderId, totalDkk } = await paidManualOrder();
    expect(okResult<Refund>(await refund({ orderId, amountDkk: 5000, confirm: true })).refundedDkk).toBe(5000);
    expect(expectProblem(await refund({ orderId, amountDkk: totalDkk - 4999, confirm: true }), 422, 'refund_exceeds_paid').detail).toContain(String(totalDkk - 5000));
    expect(okResult<Refund>(await refund({ orderId, confirm: true }))).toMatchObject({ status: 'refunded', amountDkk: totalDkk - 5000, refundedDkk: totalDkk });
    expectProblem(await refund({ orderId, confirm: true }), 422, 'not_refundable');
  });

  it('refuses an unpaid order (not_refundable) and an unknown one (404)', async () => {
    const { cartId } = await createCart(t, key, [{ productSlug: slug, quantity: 1 }]);
    const { orderId } = okResult<{ orderId: string }>(await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, key));
    expectProblem(await refund({ orderId, confirm: true }), 422, 'not_refundable');
    expectProblem(await refund({ orderId: 'nope', confirm: true }), 404, 'not_found');
    expectProblem(await refund({ orderId, amountDkk: 0, confirm: true }), 400, 'invalid_request');
  });

  it('analytics.summary subtracts recorded refunds from revenue', async () => {
    const summary = async () => okResult<{ revenueDkk: number }>(await t.call('analytics.summary', {}, key)).revenueDkk;
    const before = await summary();
    const { orderId, totalDkk } = await paidManualOrder();
    expect(await summary()).toBe(before + totalDkk);
    await refund({ orderId, amountDkk: 3000, confirm: true });
    expect(await summary()).toBe(before + totalDkk - 3000);
  });
});

describe('orders.refund with Stripe', () => {
  let w: PaymentsWorld;
  beforeAll(async () => {
    w = await paymentsWorld();
  });
  afterAll(() => w.close());

  const refund = (body: Record<string, unknown>, headers: Record<string, string> = {}) => w.t.call('orders.refund', body, w.key, { headers });

  it('asks Stripe to refund (pending, status unchanged); the order moves when charge.refunded arrives', async () => {
    const { orderId, intentId, chargeId } = await w.paidOrder();
    const dry = await refund({ orderId, amountDkk: 3000, dryRun: true });
    expect(dry.json().result).toMatchObject({ pending: true, refundId: null, status: 'paid' });
    expect(w.stripe.requests.filter((r) => r.path === '/v1/refunds')).toHaveLength(0);

    const headers = { 'idempotency-key': `stripe-refund-${orderId}` };
    const done = okResult<Refund>(await refund({ orderId, amountDkk: 3000, reason: 'Customer changed their mind', confirm: true }, headers));
    expect(done).toMatchObject({ orderId, status: 'paid', amountDkk: 3000, refundedDkk: 0, pending: true, refundId: expect.stringMatching(/^re_/) });
    const request = w.stripe.requests.find((r) => r.path === '/v1/refunds')!;
    expect(request).toMatchObject({ params: { payment_intent: intentId, amount: '3000', metadata: { orderId, reason: 'Customer changed their mind' } }, idempotencyKey: `order-${orderId}-refund-0-3000` });
    expect((await w.order(orderId)).status).toBe('paid');

    // A replay answers the same refund; Stripe made one.
    const again = await refund({ orderId, amountDkk: 3000, reason: 'Customer changed their mind', confirm: true }, headers);
    expect(okResult(again)).toEqual(done);
    expect(w.stripe.refunds.size).toBe(1);

    const charge = w.stripe.charges.get(chargeId)!;
    expect(charge.amount_refunded).toBe(3000);
    const res = await w.deliver(w.stripe.event('charge.refunded', charge));
    expect(res.json().outcome).toBe('applied');
    expect(await w.order(orderId)).toMatchObject({ status: 'partial_refund', refundedDkk: 3000 });
  });

  it('refuses more than is left (422 refund_exceeds_paid) without asking Stripe', async () => {
    const { orderId } = await w.paidOrder();
    const total = (await w.order(orderId)).totalDkk as number;
    const calls = w.stripe.requests.length;
    expectProblem(await refund({ orderId, amountDkk: total + 1, confirm: true }), 422, 'refund_exceeds_paid');
    expect(w.stripe.requests.length).toBe(calls);
  });

  it('maps Stripe refusing an amount it already refunded to refund_exceeds_paid', async () => {
    const { orderId, chargeId } = await w.paidOrder();
    const total = (await w.order(orderId)).totalDkk as number;
    // Refunded at Stripe (e.g. in the Dashboard), the event not here yet.
    w.stripe.charges.get(chargeId)!.amount_refunded = total;
    expectProblem(await refund({ orderId, confirm: true }), 422, 'refund_exceeds_paid');
  });
});

describe('Stripe unreachable at checkout', () => {
  it('keeps a valid pending_payment order; orders.payment_link answers 502 until Stripe answers, then the link', async () => {
    const url = await deadStripeUrl();
    const stripe = { url, secretKey: 'sk_test_fake', webhookSecret: 'whsec_fakeStripeSigningSecret' };
    const t = await createTestApp({ env: stripeEnv(stripe) });
    try {
      const key = await t.key();
      const product = await createProduct(t, key, { priceDkk: 10_000, stock: 5 });
      const { cartId } = await createCart(t, key, [{ productSlug: product.slug, quantity: 2 }]);
      const placed = okResult<{ orderId: string; status: string; payment: Record<string, unknown> }>(
        await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, key),
      );
      expect(placed.status).toBe('pending_payment');
      expect(placed.payment).toMatchObject({ provider: 'stripe', url: null, expiresAt: null, instructions: expect.stringContaining('orders.payment_link') });
      const order = await t.db.order.findUniqueOrThrow({ where: { id: placed.orderId } });
      expect(order).toMatchObject({ status: 'pending_payment', stripeCheckoutSessionId: null });
      expect(Number((await t.db.productVariant.findFirstOrThrow({ where: { productId: product.id } })).stock)).toBe(3);

      expectProblem(await t.call('orders.payment_link', { orderId: placed.orderId }, key), 502, 'upstream_error');

      const fake = await startFakeStripe({ port: Number(new URL(url).port) });
      try {
        const link = okResult<{ url: string; expiresAt: string }>(await t.call('orders.payment_link', { orderId: placed.orderId }, key));
        const session = sessionOf(fake, placed.orderId);
        expect(link).toMatchObject({ provider: 'stripe', url: session.url, expiresAt: expect.any(String) });
        expect((await t.db.order.findUniqueOrThrow({ where: { id: placed.orderId } })).stripeCheckoutSessionId).toBe(session.id);
        // Asked again, the same open session.
        expect(okResult<{ url: string }>(await t.call('orders.payment_link', { orderId: placed.orderId }, key)).url).toBe(link.url);
        expect(fake.sessions.size).toBe(1);
        // Expired at Stripe with the order still pending (the event on its way): a successor session.
        fake.expire(session.id as string);
        const next = okResult<{ url: string }>(await t.call('orders.payment_link', { orderId: placed.orderId }, key));
        expect(next.url).not.toBe(link.url);
        expect(fake.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!.idempotencyKey).toBe(`order-${placed.orderId}-checkout-after-${String(session.id)}`);
      } finally {
        await fake.close();
      }
    } finally {
      await t.close();
    }
  });
});
