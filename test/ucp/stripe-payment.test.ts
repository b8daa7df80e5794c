// UCP's Stripe payment handler against the fake Stripe API: declared in the profile when Stripe is configured; a
// SharedPaymentToken paid as one PaymentIntent (the request shape checked), declined 402, fraud 403, 3-D Secure as
// requires_escalation with the bank's page and completed on the retry, refunded when the completion fails after it;
// and the storefront payment page of an escalated checkout sending the buyer to Stripe Checkout.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-server.ts';
import { stripeEnv } from '../payments/setup.ts';
import type { TestApp } from '../helpers/app.ts';
import { checkout, createBody, expectValid, paymentWith, PROFILE_SCHEMA, ROSES, startPlatform, total, ucp, ucpApp, ucpError, type Platform } from './helpers.ts';

let t: TestApp;
let p: Platform;
let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await startFakeStripe();
  t = await ucpApp(stripeEnv(stripe));
  p = await startPlatform(t);
});
afterAll(async () => {
  await p?.close();
  await t?.close();
  await stripe?.close();
});

const spt = (token: string) => ({
  payment: { instruments: [{ id: 'instr_1', handler_id: 'stripe', type: 'card', selected: true, display: { brand: 'visa', last_digits: '4242' }, credential: { type: 'spt', token } }] },
});
const ready = async (items: Array<[string, number]> = [[ROSES, 1]]) => checkout(await ucp(t, p, 'POST', '/ucp/checkout-sessions', createBody(items, true)), 201);
const complete = (id: string, body: unknown, idempotencyKey = randomUUID()) => ucp(t, p, 'POST', `/ucp/checkout-sessions/${id}/complete`, body, { idempotencyKey });
const intentsOf = (sessionId: string) => [...stripe.intents.values()].filter((i) => (i.metadata as Record<string, string>).checkout_session_id === sessionId);

describe('the Stripe handler', () => {
  it('is declared in the profile when Stripe is configured, in this service’s namespace', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/ucp' });
    expect(res.statusCode).toBe(200);
    expectValid(res.json(), [PROFILE_SCHEMA]);
    expect(res.json().ucp.payment_handlers['dev.agent_api.stripe']).toEqual([
      { id: 'stripe', version: '2026-04-08', config: { psp: 'stripe', environment: 'sandbox', credential_types: ['spt'] } },
    ]);
  });

  it('pays with a SharedPaymentToken as one PaymentIntent of the total; the order is paid, channel ucp', async () => {
    const c = await ready([['bouquet_tulips', 2]]);
    const key = randomUUID();
    const res = await complete(c.id, spt('spt_ok_1'), key);
    const done = checkout(res);
    expect(done.status).toBe('completed');
    // The instrument that paid, without its credential (the schema omits it in responses).
    expect((res.json() as { payment: unknown }).payment).toEqual({
      instruments: [{ id: 'instr_1', handler_id: 'stripe', type: 'card', selected: true, display: { brand: 'visa', last_digits: '4242' } }],
    });
    const call = stripe.requests.find((r) => r.path === '/v1/payment_intents' && r.params.metadata && (r.params.metadata as Record<string, string>).checkout_session_id === c.id)!;
    expect(call.method).toBe('POST');
    expect(call.params).toMatchObject({
      amount: String(total(c, 'total')), currency: 'usd', confirm: 'true', payment_method_data: { shared_payment_granted_token: 'spt_ok_1' },
      metadata: { checkout_session_id: c.id, protocol: 'ucp' },
    });
    expect(call.params.return_url).toMatch(new RegExp(`^https://shop\\.example\\.com/checkout/ucp/${c.id}/`));
    expect(call.idempotencyKey).toMatch(new RegExp(`:ucp:${key}$`));
    const [intent] = intentsOf(c.id);
    const order = await t.db.order.findUniqueOrThrow({ where: { id: done.order!.id } });
    expect(order).toMatchObject({ channel: 'ucp', acpSessionId: c.id, stripePaymentIntentId: intent.id, paymentMethod: 'card', status: 'paid', totalDkk: BigInt(total(c, 'total')!) });
    // The same request again is answered from its Idempotency-Key: no second PaymentIntent, the same order.
    const again = await complete(c.id, spt('spt_ok_1'), key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(checkout(again).order?.id).toBe(order.id);
    expect(intentsOf(c.id)).toHaveLength(1);
    // Not even asked again: the replay's first run stops at its claim (the key is stored), before the handler's
    // first statement and so before any call to Stripe (docs/performance.md, "Writes" item 23).
    const charges = stripe.requests.filter((r) => r.path === '/v1/payment_intents' && (r.params.metadata as Record<string, string> | undefined)?.checkout_session_id === c.id);
    expect(charges).toHaveLength(1);
  });

  it('answers a declined token 402 and a fraudulent one 403, changing nothing', async () => {
    const c = await ready();
    ucpError(await complete(c.id, spt('spt_declined_1')), 402, 'payment_declined');
    ucpError(await complete(c.id, spt('spt_fraud_1')), 403, 'payment_rejected');
    // A credential that is no SharedPaymentToken is declined by this handler too.
    ucpError(await complete(c.id, paymentWith('tok_visa', 'stripe')), 402, 'payment_declined');
    expect(await t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
    expect(checkout(await ucp(t, p, 'GET', `/ucp/checkout-sessions/${c.id}`)).status).toBe('ready_for_complete');
  });

  it('sends the buyer to the bank for 3-D Secure (requires_escalation) and completes the retry with the same PaymentIntent', async () => {
    const c = await ready();
    const escalated = checkout(await complete(c.id, spt('spt_challenge_1')));
    const [intent] = intentsOf(c.id);
    expect(escalated.status).toBe('requires_escalation');
    expect(escalated.continue_url).toBe(`https://hooks.stripe.com/3d_secure_2/authenticate/${String(intent.id)}`);
    expect(escalated.messages).toEqual([expect.objectContaining({ type: 'error', code: 'requires_3ds', severity: 'requires_buyer_input' })]);
    expect(checkout(await ucp(t, p, 'GET', `/ucp/checkout-sessions/${c.id}`)).continue_url).toBe(escalated.continue_url);
    // Sent again before the buyer passed it: still waiting.
    expect(checkout(await complete(c.id, spt('spt_challenge_1'))).status).toBe('requires_escalation');
    stripe.authenticate(String(intent.id), true);
    const done = checkout(await complete(c.id, spt('spt_challenge_1')));
    expect(done.status).toBe('completed');
    expect(intentsOf(c.id)).toHaveLength(1);
    expect(await t.db.order.findUniqueOrThrow({ where: { id: done.order!.id } })).toMatchObject({ stripePaymentIntentId: intent.id, status: 'paid' });
  });

  it('declines a payment whose 3-D Secure failed', async () => {
    const c = await ready();
    checkout(await complete(c.id, spt('spt_challenge_2')));
    const [intent] = intentsOf(c.id);
    stripe.authenticate(String(intent.id), false);
    ucpError(await complete(c.id, spt('spt_challenge_2')), 402, 'payment_declined');
    expect(await t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
  });

  it('gives the payment back when the completion fails after it (the price changed while the buyer was at the bank)', async () => {
    const c = await ready([['pot_ceramic', 1]]);
    checkout(await complete(c.id, spt('spt_challenge_3')));
    const [intent] = intentsOf(c.id);
    stripe.authenticate(String(intent.id), true);
    const variant = await t.db.productVariant.findUniqueOrThrow({ where: { id: 'pot_ceramic' } });
    await t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { priceDkk: variant.priceDkk + 100n } });
    try {
      ucpError(await complete(c.id, spt('spt_challenge_3')), 409, 'conflict');
    } finally {
      await t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { priceDkk: variant.priceDkk } });
    }
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === intent.id)).toHaveLength(1);
    expect(await t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
  });
});

describe('the storefront payment page with Stripe', () => {
  it('places the order of an escalated checkout and sends the buyer to Stripe Checkout', async () => {
    const c = await ready();
    const escalated = checkout(await complete(c.id, paymentWith('tok', 'com.example.wallet')));
    const page = new URL(escalated.continue_url!).pathname;
    const form = await t.app.inject({ method: 'GET', url: page });
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('Stripe');
    const res = await t.app.inject({ method: 'POST', url: page, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `expectedTotal=${total(c, 'total')}` });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_/);
    const order = await t.db.order.findFirstOrThrow({ where: { acpSessionId: c.id } });
    expect(order).toMatchObject({ channel: 'ucp', status: 'pending_payment' });
    const session = [...stripe.sessions.values()].find((s) => (s.metadata as Record<string, string>).orderId === order.id)!;
    expect(session.amount_total).toBe(total(c, 'total'));
    expect(String(session.success_url)).toMatch(new RegExp(`^https://shop\\.example\\.com/orders/${order.id}/`));
  });
});
