// Safety of the ACP routes (docs/agentic-checkout.md, "ACP"): every bad input gets the protocol's answer — a
// CheckoutSession or its flat Error, valid against the protocol's JSON Schema, never a 5xx — and a refused request
// changes nothing; every write is audited; a platform sees and changes only its own sessions. The fuzzing is seeded
// (FUZZ_SEED, default fixed) so a failure replays; FUZZ_RUNS sets the runs.
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { acp, ADDRESS, createBody, expectSchema, payWith, session, useAcp } from './helpers.ts';

const w = useAcp();
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 20261206);
const settings = { numRuns: RUNS, seed: SEED };

/** A valid body with one part replaced by anything. */
const nearValid = fc.oneof(
  fc.jsonValue(),
  fc.record({ line_items: fc.jsonValue() }),
  fc.record({ line_items: fc.array(fc.record({ id: fc.oneof(fc.string(), fc.constant('item_123')), quantity: fc.oneof(fc.integer(), fc.double(), fc.string()) }), { maxLength: 3 }) }),
  fc.jsonValue().map((v) => ({ ...createBody(), currency: v })),
  fc.jsonValue().map((v) => ({ ...createBody(), buyer: v })),
  fc.jsonValue().map((v) => ({ ...createBody(), fulfillment_details: v })),
  fc.jsonValue().map((v) => ({ ...createBody(), fulfillment_details: { name: 'A', address: { ...ADDRESS, postal_code: v } } })),
  fc.jsonValue().map((v) => ({ ...createBody(), selected_fulfillment_options: v })),
  fc.jsonValue().map((v) => ({ ...createBody(), discounts: { codes: v } })),
);

/** Headers a platform may get wrong. */
const badHeaders = fc.oneof(
  fc.record({ 'api-version': fc.string({ maxLength: 20 }) }),
  fc.record({ 'idempotency-key': fc.string({ maxLength: 300 }) }),
  fc.record({ 'content-type': fc.constantFrom('text/plain', 'application/xml', 'application/json; charset=latin1') }),
);

function answeredWell(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBeLessThan(500);
  const body = res.json();
  if (res.statusCode < 300) expectSchema(body, body.status === 'completed' ? 'CheckoutSessionWithOrder' : 'CheckoutSession');
  else expectSchema(body, 'Error');
}

/** What a refused request must not have changed: sessions, orders, audit entries. */
const counts = async () => [await w.t.db.checkoutSession.count(), await w.t.db.order.count(), await w.t.db.auditEntry.count()];

describe('every bad input gets the protocol’s answer', () => {
  it('create and update answer every body with a session or an Error; a refused one changes nothing', async () => {
    const base = session(await acp(w, 'POST', '/acp/checkout_sessions', createBody()), 201);
    await fc.assert(
      fc.asyncProperty(nearValid, async (body) => {
        const before = await counts();
        const created = await acp(w, 'POST', '/acp/checkout_sessions', body);
        answeredWell(created);
        const updated = await acp(w, 'POST', `/acp/checkout_sessions/${base.id}`, body);
        answeredWell(updated);
        if (created.statusCode >= 400 && updated.statusCode >= 400) expect(await counts()).toEqual(before);
      }),
      settings,
    );
  }, 180_000);

  it('complete and cancel answer every body with a session or an Error', async () => {
    const payment = fc.oneof(
      fc.jsonValue(),
      fc.jsonValue().map((v) => ({ payment_data: v })),
      fc.jsonValue().map((v) => ({ payment_data: { handler_id: 'card_tokenized', instrument: v } })),
      fc.string({ maxLength: 40 }).map((token) => payWith(token)),
    );
    await fc.assert(
      fc.asyncProperty(payment, fc.jsonValue(), async (body, cancelBody) => {
        const s = session(await acp(w, 'POST', '/acp/checkout_sessions', createBody([['item_456', 1]], true)), 201);
        answeredWell(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, body));
        answeredWell(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/cancel`, cancelBody));
      }),
      { ...settings, numRuns: Math.ceil(RUNS / 2) },
    );
  }, 180_000);

  it('answers bad headers and malformed JSON with an Error', async () => {
    await fc.assert(
      fc.asyncProperty(badHeaders, async (headers) => {
        answeredWell(await acp(w, 'POST', '/acp/checkout_sessions', createBody(), { headers }));
      }),
      settings,
    );
    const raw = await w.t.app.inject({
      method: 'POST', url: '/acp/checkout_sessions', payload: '{"line_items": [',
      headers: { authorization: `Bearer ${w.key}`, 'api-version': '2026-04-17', 'idempotency-key': 'k-malformed', 'content-type': 'application/json' },
    });
    expect(raw.statusCode).toBe(400);
    expectSchema(raw.json(), 'Error');
  }, 120_000);
});

describe('audit and ownership', () => {
  it('audits every write of a session, with the platform key as the actor', async () => {
    const s = session(await acp(w, 'POST', '/acp/checkout_sessions', createBody([['item_123', 1]])), 201);
    session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}`, { fulfillment_details: { name: 'Ada', email: 'ada@example.com', address: ADDRESS } }));
    session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/cancel`, {}));
    const entries = await w.t.db.auditEntry.findMany({ where: { entityType: 'checkout_session', entityId: s.id } });
    expect(entries.map((e) => e.tool).sort()).toEqual(['acp.cancel_checkout_session', 'acp.create_checkout_session', 'acp.update_checkout_session']);
    const platform = await w.t.db.checkoutSession.findUniqueOrThrow({ where: { id: s.id }, select: { apiKeyId: true } });
    for (const e of entries) expect(e.apiKeyId).toBe(platform.apiKeyId);
  });

  it('lets another platform neither read, change, complete nor cancel a session, and changes nothing', async () => {
    const s = session(await acp(w, 'POST', '/acp/checkout_sessions', createBody([['item_123', 1]], true)), 201);
    const other = await w.t.key(['checkout:agent']);
    const before = await counts();
    const row = await w.t.db.checkoutSession.findUniqueOrThrow({ where: { id: s.id } });
    for (const [method, url, body] of [
      ['GET', `/acp/checkout_sessions/${s.id}`, undefined],
      ['POST', `/acp/checkout_sessions/${s.id}`, { buyer: { email: 'eve@example.com' } }],
      ['POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_other')],
      ['POST', `/acp/checkout_sessions/${s.id}/cancel`, {}],
    ] as const) {
      const res = await acp(w, method, url, body, { key: other });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expectSchema(res.json(), 'Error');
    }
    expect(await counts()).toEqual(before);
    expect(await w.t.db.checkoutSession.findUniqueOrThrow({ where: { id: s.id } })).toEqual(row);
    expect(w.stripe.requests.filter((r) => r.params && JSON.stringify(r.params).includes('spt_test_other'))).toEqual([]);
  });
});
