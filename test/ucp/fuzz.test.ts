// Every bad input gets the protocol's error shape: random bodies (and near-valid ones with a field broken) sent to
// the UCP operations answer either a valid checkout or a valid error response, never a server error.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { CHECKOUT_SCHEMAS, createBody, errorBody, expectValid, paymentWith, ROSES, ucp, useUcp } from './helpers.ts';

const ctx = useUcp();
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

/** A valid body with one part replaced by anything. */
const nearValid = fc.oneof(
  fc.jsonValue(),
  fc.record({ line_items: fc.jsonValue() }),
  fc.record({ line_items: fc.array(fc.record({ item: fc.record({ id: fc.oneof(fc.string(), fc.constant(ROSES)) }), quantity: fc.oneof(fc.integer(), fc.double(), fc.string()) }), { maxLength: 3 }) }),
  fc.jsonValue().map((v) => ({ ...createBody([[ROSES, 1]], true), buyer: v })),
  fc.jsonValue().map((v) => ({ ...createBody([[ROSES, 1]], true), fulfillment: v })),
  fc.jsonValue().map((v) => ({ ...createBody(), discounts: { codes: v } })),
);

function answeredWell(res: { statusCode: number; json: () => unknown; body: string }) {
  expect(res.statusCode, res.body).toBeLessThan(500);
  if (res.statusCode < 300) expectValid(res.json(), CHECKOUT_SCHEMAS);
  else errorBody(res.json(), res.statusCode);
}

it('create and update answer every body with a checkout or the protocol’s error response', async () => {
  const { t, p } = ctx;
  const base = (await ucp(t, p, 'POST', '/ucp/checkout-sessions', createBody())).json() as { id: string };
  await fc.assert(
    fc.asyncProperty(nearValid, async (body) => {
      answeredWell(await ucp(t, p, 'POST', '/ucp/checkout-sessions', body));
      answeredWell(await ucp(t, p, 'PUT', `/ucp/checkout-sessions/${base.id}`, body));
    }),
    { numRuns: RUNS },
  );
}, 120_000);

it('complete answers every payment body with a checkout or the protocol’s error response', async () => {
  const { t, p } = ctx;
  const payment = fc.oneof(fc.jsonValue(), fc.jsonValue().map((v) => ({ payment: { instruments: v } })), fc.string().map((tok) => paymentWith(tok)));
  await fc.assert(
    fc.asyncProperty(payment, async (body) => {
      const c = (await ucp(t, p, 'POST', '/ucp/checkout-sessions', createBody([['bouquet_sunflowers', 1]], true))).json() as { id: string };
      answeredWell(await ucp(t, p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, body));
    }),
    { numRuns: Math.ceil(RUNS / 2) },
  );
}, 120_000);
