// ACP checkout sessions over REST, end to end against PostgreSQL: create, update, complete with a Stripe
// SharedPaymentToken against the fake Stripe API (paid, declined), cancel, headers, idempotency, and who may see
// what. Every answer is validated against the protocol's JSON Schema.
import { describe, expect, it } from 'vitest';
import { chargeSharedToken } from '../../src/services/payments.ts';
import { acp, acpError, ADDRESS, createBody, payWith, session, total, useAcp } from './helpers.ts';

const w = useAcp();

const create = async (body: unknown = createBody()) => session(await acp(w, 'POST', '/acp/checkout_sessions', body), 201);

describe('lifecycle', () => {
  it('creates a session that is not ready for payment until it has an address and e-mail', async () => {
    const s = await create(createBody([['item_123', 2]]));
    expect(s.id).toMatch(/^cs_/);
    expect(s.status).toBe('not_ready_for_payment');
    expect(s.currency).toBe('usd');
    expect(s.line_items[0]).toMatchObject({ item: { id: 'item_123' }, quantity: 2, unit_amount: 300 });
    expect(total(s, 'subtotal')).toBe(600);
    expect(total(s, 'total')).toBe(600);
    expect(s.messages.map((m) => m.param)).toEqual(expect.arrayContaining(['$.buyer.email', '$.fulfillment_details.address']));
    expect(s.links.map((l) => l.type)).toEqual(['terms_of_use', 'privacy_policy']);
    expect(s.capabilities.payment.handlers.map((h) => h.id)).toEqual(['card_tokenized']);
    const again = session(await acp(w, 'GET', `/acp/checkout_sessions/${s.id}`));
    expect(again.id).toBe(s.id);
  });

  it('updates to ready_for_payment with shipping selected, then completes into a paid order of channel acp', async () => {
    const s = await create();
    const updated = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}`, {
      buyer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Buyer' }, fulfillment_details: { name: 'Ada Buyer', address: ADDRESS },
    }));
    expect(updated.status).toBe('ready_for_payment');
    expect(updated.selected_fulfillment_options?.[0].option_id).toBe('standard');
    expect(total(updated, 'fulfillment')).toBe(100);
    expect(total(updated, 'total')).toBe(400);

    const done = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_ok_1')));
    expect(done.status).toBe('completed');
    expect(done.order).toMatchObject({ checkout_session_id: s.id, status: 'confirmed' });
    const order = await w.t.db.order.findUniqueOrThrow({ where: { id: done.order!.id } });
    expect(order).toMatchObject({ channel: 'acp', acpSessionId: s.id, status: 'paid', email: 'ada@example.com', paymentMethod: 'card' });
    expect(Number(order.totalDkk)).toBe(400);
    // The PaymentIntent the fake Stripe took, in Stripe's documented request shape.
    const charge = w.stripe.requests.find((r) => r.path === '/v1/payment_intents');
    expect(charge?.params).toMatchObject({ amount: '400', currency: 'usd', confirm: 'true', payment_method_data: { shared_payment_granted_token: 'spt_test_ok_1' } });
    expect(order.stripePaymentIntentId).toBe(w.stripe.intents.values().next().value?.id);
    const read = session(await acp(w, 'GET', `/acp/checkout_sessions/${s.id}`));
    expect(read.status).toBe('completed');
    expect(read.order?.id).toBe(order.id);
  });

  it('answers a declined token with the session and a payment_declined message, changing nothing', async () => {
    const s = await create(createBody([['item_456', 1]], true));
    expect(s.status).toBe('ready_for_payment');
    const declined = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_declined')));
    expect(declined.status).toBe('ready_for_payment');
    expect(declined.messages.map((m) => m.code)).toContain('payment_declined');
    expect(await w.t.db.order.count({ where: { acpSessionId: s.id } })).toBe(0);
  });

  it('refuses a credential that is no SharedPaymentToken with a 400 naming it, before Stripe is asked', async () => {
    const s = await create(createBody([['item_456', 1]], true));
    const asked = w.stripe.requests.length;
    const res = acpError(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('tok_visa')), 400, 'invalid');
    expect(res.param).toBe('$.payment_data.instrument.credential.token');
    expect(w.stripe.requests.length).toBe(asked);
    // A token Stripe itself refuses is the payment failing (declined), not an outage (502).
    const refused = await chargeSharedToken(w.t.config, { amount: 100, currency: 'usd', token: 'not-a-token', idempotencyKey: 'refused-1', metadata: {} });
    expect(refused).toMatchObject({ paid: false, message: expect.stringContaining('refused') });
  });

  it('refuses a payment no handler takes with the protocol error', async () => {
    const s = await create(createBody([['item_123', 1]], true));
    const res = acpError(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, { payment_data: { handler_id: 'other', instrument: { type: 'card', credential: { type: 'vt', token: 'x' } } } }), 400, 'unsupported_payment_method');
    expect(res.type).toBe('invalid_request');
  });

  it('cancels an open session; a canceled one is not cancelable (405)', async () => {
    const s = await create();
    const canceled = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/cancel`, { intent_trace: { reason_code: 'shipping_cost' } }));
    expect(canceled.status).toBe('canceled');
    acpError(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/cancel`), 405, 'not_cancelable');
  });

  it('refuses to complete an incomplete session before charging anything', async () => {
    const s = await create();
    const before = w.stripe.requests.length;
    acpError(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_ok_2')), 422, 'checkout_session_incomplete');
    expect(w.stripe.requests.length).toBe(before);
  });
});

describe('headers', () => {
  it('requires API-Version 2026-04-17 and names the supported versions', async () => {
    const missing = acpError(await acp(w, 'GET', '/acp/checkout_sessions/cs_x', undefined, { headers: { 'api-version': '' } }), 400);
    expect(missing.supported_versions).toEqual(['2026-04-17']);
    acpError(await acp(w, 'POST', '/acp/checkout_sessions', createBody(), { headers: { 'api-version': '2026-01-16' } }), 400, 'unsupported_api_version');
  });

  it('echoes Request-Id and the Idempotency-Key', async () => {
    const res = await acp(w, 'POST', '/acp/checkout_sessions', createBody(), { idempotencyKey: 'echo-me', headers: { 'request-id': 'req_echo' } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['request-id']).toBe('req_echo');
    expect(res.headers['idempotency-key']).toBe('echo-me');
  });

  it('answers invalid bodies with the Error shape and a JSONPath param', async () => {
    const bad = acpError(await acp(w, 'POST', '/acp/checkout_sessions', { line_items: [{ id: 'item_123', quantity: 0 }] }), 400, 'invalid');
    expect(bad.param).toBe('$.line_items[0].quantity');
    const none = acpError(await acp(w, 'POST', '/acp/checkout_sessions', { currency: 'usd' }), 400, 'missing');
    expect(none.param).toBe('$.line_items');
    acpError(await acp(w, 'POST', '/acp/checkout_sessions', { ...createBody(), currency: 'eur' }), 400, 'invalid');
  });
});

describe('idempotency', () => {
  it('requires a key on every POST (400 idempotency_key_required)', async () => {
    acpError(await acp(w, 'POST', '/acp/checkout_sessions', createBody(), { idempotencyKey: null }), 400, 'idempotency_key_required');
    const s = await create();
    acpError(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}`, {}, { idempotencyKey: null }), 400, 'idempotency_key_required');
    acpError(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/cancel`, undefined, { idempotencyKey: null }), 400, 'idempotency_key_required');
  });

  it('replays the same answer for the same key and body, and refuses another body (422 idempotency_conflict)', async () => {
    const first = await acp(w, 'POST', '/acp/checkout_sessions', createBody(), { idempotencyKey: 'replay-1' });
    const again = await acp(w, 'POST', '/acp/checkout_sessions', createBody(), { idempotencyKey: 'replay-1' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
    acpError(await acp(w, 'POST', '/acp/checkout_sessions', createBody([['item_456', 1]]), { idempotencyKey: 'replay-1' }), 422, 'idempotency_conflict');
  });

  it('replays a completion without charging again', async () => {
    const s = await create(createBody([['item_123', 1]], true));
    const first = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_ok_3'), { idempotencyKey: 'complete-1' }));
    const again = await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_ok_3'), { idempotencyKey: 'complete-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(session(again).order?.id).toBe(first.order?.id);
    expect(await w.t.db.order.count({ where: { acpSessionId: s.id } })).toBe(1);
    const intents = [...w.stripe.intents.values()].filter((i) => (i.metadata as Record<string, string>).checkout_session_id === s.id);
    expect(intents).toHaveLength(1);
  });
});

describe('who may see what', () => {
  it('needs a key with checkout:agent', async () => {
    acpError(await acp(w, 'POST', '/acp/checkout_sessions', createBody(), { key: null }), 401, 'unauthorized');
    const other = await w.t.key(['orders:read']);
    acpError(await acp(w, 'POST', '/acp/checkout_sessions', createBody(), { key: other }), 403, 'insufficient_scope');
  });

  it('hides one platform’s sessions from another (404)', async () => {
    const s = await create();
    const other = await w.t.key(['checkout:agent']);
    acpError(await acp(w, 'GET', `/acp/checkout_sessions/${s.id}`, undefined, { key: other }), 404, 'not_found');
    acpError(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}`, {}, { key: other }), 404, 'not_found');
  });
});

describe('shipping rates', () => {
  it('on a shop with shipping rates, ships with the cheapest option offered until the agent selects another', async () => {
    await w.t.db.shippingRate.createMany({ data: [
      { id: 'acp-ground', title: 'Ground', serviceLevel: 'standard', countryCode: null, priceDkk: 250n },
      { id: 'acp-express', title: 'Express', serviceLevel: 'express', countryCode: null, priceDkk: 900n },
    ] });
    try {
      const s = await create(createBody([['item_123', 1]], true));
      expect(s.status).toBe('ready_for_payment');
      expect(s.selected_fulfillment_options?.[0].option_id).toBe('acp-ground');
      expect(total(s, 'fulfillment')).toBe(250);
      const express = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}`, { selected_fulfillment_options: [{ type: 'shipping', option_id: 'acp-express', item_ids: ['item_123'] }] }));
      expect(express.selected_fulfillment_options?.[0].option_id).toBe('acp-express');
      expect(total(express, 'fulfillment')).toBe(900);
      const done = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_rates_1')));
      expect(done.status).toBe('completed');
      expect(await w.t.db.order.findFirstOrThrow({ where: { acpSessionId: s.id } })).toMatchObject({ shippingDkk: 900n, channel: 'acp' });
    } finally {
      await w.t.db.shippingRate.deleteMany({ where: { id: { in: ['acp-ground', 'acp-express'] } } });
    }
  });
});
