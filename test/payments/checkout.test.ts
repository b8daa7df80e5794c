// PAYMENTS_PROVIDER=stripe at checkout (docs/payments.md): the Checkout Session is opened after the order committed,
// priced as the service priced the order, keyed to the order so a retry never makes a second one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { okResult } from '../helpers/calls.ts';
import { expectProblem } from '../helpers/problem.ts';
import { makeDiscount } from '../helpers/factories.ts';
import { paymentsWorld, sessionOf, type PaymentsWorld } from './setup.ts';

let w: PaymentsWorld;
beforeAll(async () => {
  w = await paymentsWorld();
});
afterAll(() => w.close());

describe('checkout.create_order with Stripe', () => {
  it('answers with the Checkout link of a session priced like the order, the order id in its metadata', async () => {
    const placed = await w.checkout(2);
    expect(placed.status).toBe('pending_payment');
    const session = sessionOf(w.stripe, placed.orderId);
    expect(placed.payment).toMatchObject({ provider: 'stripe', url: session.url, expiresAt: new Date((session.expires_at as number) * 1000).toISOString() });
    expect(session.amount_total).toBe(placed.totalDkk);
    expect(session.metadata).toEqual({ orderId: placed.orderId });
    const create = w.stripe.requests.find((r) => r.path === '/v1/checkout/sessions' && (r.params.metadata as Record<string, string>).orderId === placed.orderId)!;
    expect(create.params).toMatchObject({
      mode: 'payment', client_reference_id: placed.orderId, customer_email: 'Buyer@Example.com',
      payment_intent_data: { metadata: { orderId: placed.orderId } }, allowed_payment_method_types: ['card', 'mobilepay'],
      success_url: `https://shop.example.com/?order=${placed.orderId}&payment=paid`, cancel_url: `https://shop.example.com/?order=${placed.orderId}&payment=cancelled`,
    });
    expect(create.params.line_items).toEqual([
      { price_data: { currency: 'dkk', unit_amount: '10000', product_data: { name: 'Test frame' } }, quantity: '2' },
      { price_data: { currency: 'dkk', unit_amount: '4900', product_data: { name: 'Shipping' } }, quantity: '1' },
    ]);
    expect(create.idempotencyKey).toBe(`order-${placed.orderId}-checkout`);
    const order = await w.order(placed.orderId);
    expect(order).toMatchObject({ stripeCheckoutSessionId: session.id, paymentMethod: null, refundedDkk: 0 });
  });

  it('charges a discounted order its total in one line naming the items and the code', async () => {
    const code = await makeDiscount(w.t.db, { type: 'percent', value: 10 });
    const placed = await w.checkout(1, code.code);
    const session = sessionOf(w.stripe, placed.orderId);
    expect(session.amount_total).toBe(placed.totalDkk);
    const create = w.stripe.requests.find((r) => (r.params.metadata as Record<string, string> | undefined)?.orderId === placed.orderId)!;
    expect(create.params.line_items).toEqual([
      { price_data: { currency: 'dkk', unit_amount: String(placed.totalDkk), product_data: { name: `Order ${placed.orderId}`, description: expect.stringContaining(code.code) } }, quantity: '1' },
    ]);
  });

  it('replays a checkout with the same Idempotency-Key: the same order and the same session link', async () => {
    const { cartId } = okResult<{ cartId: string }>(await w.t.call('cart.create', { items: [{ productSlug: w.product.slug, quantity: 1 }] }, w.key));
    const body = { cartId, email: 'a@example.com', shippingName: 'A', shippingAddress: 'Vej 1', shippingZip: '8000', shippingCity: 'Aarhus' };
    const headers = { 'idempotency-key': `checkout-${cartId}` };
    const first = await w.t.call('checkout.create_order', body, w.key, { headers });
    const again = await w.t.call('checkout.create_order', body, w.key, { headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(okResult(again)).toEqual(okResult(first));
    expect([...w.stripe.sessions.values()].filter((s) => (s.metadata as Record<string, string>).orderId === okResult<{ orderId: string }>(first).orderId)).toHaveLength(1);
  });

  it('orders.payment_link returns the open session; 409 order_not_payable once the order is paid', async () => {
    const placed = await w.checkout();
    const link = okResult(await w.t.call('orders.payment_link', { orderId: placed.orderId }, w.key));
    expect(link).toMatchObject({ orderId: placed.orderId, provider: 'stripe', url: placed.payment.url });
    const { session } = w.stripe.pay(sessionOf(w.stripe, placed.orderId).id as string);
    expect((await w.deliver(w.stripe.event('checkout.session.completed', session))).statusCode).toBe(200);
    expectProblem(await w.t.call('orders.payment_link', { orderId: placed.orderId }, w.key), 409, 'order_not_payable');
    expectProblem(await w.t.call('orders.payment_link', { orderId: 'nope' }, w.key), 404, 'not_found');
  });
});
