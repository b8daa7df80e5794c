// The number of SQL statements one write sends, and the round trips it waits for, so the ones removed from the
// write path (docs/performance.md, "Writes") do not creep back. Counted at the pg driver, under Prisma and the
// hand-written SQL alike: every statement the app's connections send, BEGIN and COMMIT included. A statement sent
// while its connection still awaits an answer is pipelined (BEGIN ahead of a write's first statement, COMMIT
// behind its final one) and costs no round trip of its own. A change that needs more must raise the numbers here
// on purpose.
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createCart, makeDiscount, makeProduct } from '../helpers/factories.ts';

let t: TestApp;
let key: string;
/** Each statement sent, and whether its connection was still awaiting an answer when it was (pipelined). */
let sent: Array<{ sql: string; pipelined: boolean }> | null = null;
/** Statements sent and not yet answered, per connection. */
const inFlight = new WeakMap<pg.Client, number>();

const query = pg.Client.prototype.query;
beforeAll(async () => {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    const waiting = inFlight.get(this) ?? 0;
    // Without pipeline mode pg holds a statement back until the one before it is answered: a round trip each.
    sent?.push({ sql: typeof first === 'string' ? first : String(first?.text), pipelined: waiting > 0 && this.pipeline });
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) {
      inFlight.set(this, waiting + 1);
      result.finally(() => inFlight.set(this, (inFlight.get(this) ?? 1) - 1)).catch(() => {});
    }
    return result;
  } as typeof query;
  t = await createTestApp();
  key = await t.key();
});
afterAll(async () => {
  pg.Client.prototype.query = query;
  await t?.close();
});
beforeEach(async () => {
  await t.db.product.deleteMany({ where: { orderItems: { none: {} }, cartItems: { none: {} } } });
});

/**
 * The statements the app sends while answering one tool call, without authentication's (the key's lookup and its
 * lastUsedAt, cached and throttled per key: not part of the write).
 */
async function statementsOf(name: string, body: unknown, headers: Record<string, string> = {}, app = t, appKey = key) {
  return statementsOfRequest(async () => okResult(await app.call(name, body, appKey, { headers })));
}

async function statementsOfRequest(send: () => Promise<unknown>) {
  sent = [];
  try {
    await send();
    const statements = sent.filter(({ sql }) => !sql.includes('"ApiKey"'));
    return { statements: statements.length, roundTrips: statements.filter((s) => !s.pipelined).length };
  } finally {
    sent = null;
  }
}

const CONTACT = CHECKOUT_CONTACT;

const cartOf = async (...slugs: string[]) => (await createCart(t, key, slugs.map((productSlug) => ({ productSlug, quantity: 1 })))).cartId;

// A write's outgoing events (the webhook outbox, docs/webhooks.md) are CTEs of recordWrite's one statement with
// its audit entries and stored outcome, and so is a checkout's order (deferWrite): they add no statement. The
// Idempotency-Key's claim is a statement of its own, pipelined with BEGIN and the write's first statement; a first
// call reads no stored outcome before it (the claim looks), only a replay does.
describe('statements and round trips per write (BEGIN and COMMIT included)', () => {
  it('products.update: 4 statements in 2 round trips; with an Idempotency-Key 5 in 2', async () => {
    await makeProduct(t.db, { slug: 'lamp' });
    expectAtMost(await statementsOf('products.update', { slug: 'lamp', patch: { priceDkk: 12_300 } }), 4, 2);
    expectAtMost(await statementsOf('products.update', { slug: 'lamp', patch: { priceDkk: 12_400 } }, { 'idempotency-key': 'u-1' }), 5, 2);
  });

  it('checkout of two products with a discount code and an Idempotency-Key: 5 statements in 2 round trips', async () => {
    await makeProduct(t.db, { slug: 'left' });
    await makeProduct(t.db, { slug: 'right' });
    await makeDiscount(t.db, { code: 'TENOFF' });
    const cartId = await cartOf('left', 'right');
    const body = { cartId, ...CONTACT, discountCode: 'TENOFF' };
    expectAtMost(await statementsOf('checkout.create_order', body, { 'idempotency-key': 'c-1' }), 5, 2);
    // The replay: the claim finds the stored outcome and the transaction rolls back (its first round trip, with the
    // handler's first statement behind the claim), then the outcome is read.
    expectAtMost(await statementsOf('checkout.create_order', body, { 'idempotency-key': 'c-1' }), 5, 3);
  });

  it('checkout without a key: 4 statements in 2 round trips', async () => {
    await makeProduct(t.db, { slug: 'solo' });
    expectAtMost(await statementsOf('checkout.create_order', { cartId: await cartOf('solo'), ...CONTACT }), 4, 2);
  });

  // A checkout session of a protocol is two writes where checkout.create_order is one: each must cost no more than
  // the checkout does (docs/performance.md, "UCP sessions"). The platform's profile is not reachable here, so the
  // session has no webhook endpoint to ensure.
  it('a UCP checkout session: create and complete, each 5 statements in 2 round trips, as a checkout; so is an update', async () => {
    const product = await makeProduct(t.db, { slug: 'session-goods' });
    const variant = await t.db.productVariant.findFirstOrThrow({ where: { productId: product.id } });
    const platformKey = await t.key(['checkout:agent']);
    const ucp = (url: string, body: Record<string, unknown>, idempotencyKey: string, method: 'POST' | 'PUT' = 'POST') => async () => {
      const res = await t.app.inject({
        method, url, payload: body,
        headers: { authorization: `Bearer ${platformKey}`, 'ucp-agent': 'profile="http://127.0.0.1:9/platform.json"', 'idempotency-key': idempotencyKey },
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json() as { id: string };
    };
    const checkout = {
      line_items: [{ item: { id: variant.id }, quantity: 1 }],
      buyer: { email: 'buyer@example.com' },
      fulfillment: { methods: [{ type: 'shipping', selected_destination_id: 'd', destinations: [{ id: 'd', street_address: 'Vej 1', address_locality: 'By', postal_code: '1000', address_country: 'DK' }], groups: [{ selected_option_id: 'standard' }] }] },
    };
    // The first session also makes the settings row and the signing secret of continue_url, once per database.
    await ucp('/ucp/checkout-sessions', checkout, 's-0')();
    const create = await statementsOfRequest(ucp('/ucp/checkout-sessions', checkout, 's-1'));
    const { id } = await t.db.checkoutSession.findFirstOrThrow({ orderBy: { createdAt: 'desc' } });
    // An update locks and prices the session with the body's items in one statement; the change joins the final one.
    const update = await statementsOfRequest(ucp(`/ucp/checkout-sessions/${id}`, { ...checkout, line_items: [{ item: { id: variant.id }, quantity: 2 }] }, 's-u', 'PUT'));
    const payment = { payment: { instruments: [{ id: 'i', handler_id: 'mock_payment_handler', type: 'card', selected: true, credential: { type: 'token', token: 'success_token' } }] } };
    const complete = await statementsOfRequest(ucp(`/ucp/checkout-sessions/${id}/complete`, payment, 's-2'));
    expectAtMost(create, 5, 2);
    expectAtMost(update, 5, 2);
    expectAtMost(complete, 5, 2);
    expect(await t.db.checkoutSession.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'completed', orderId: expect.any(String) });
  });

  it('cart.add_item: 5 statements in 3 round trips', async () => {
    await makeProduct(t.db, { slug: 'first' });
    await makeProduct(t.db, { slug: 'second' });
    const cartId = await cartOf('first');
    expectAtMost(await statementsOf('cart.add_item', { cartId, productSlug: 'second', quantity: 2 }), 5, 3);
  });
});

// With SMTP_URL set, a manually paid order's confirmation e-mail is one more CTE of the same final statement
// (docs/email.md): the checkout keeps its statements and round trips.
describe('checkout with e-mail set up', () => {
  let mailing: TestApp;
  let mailingKey: string;
  beforeAll(async () => {
    mailing = await createTestApp({ env: { SMTP_URL: 'smtp://127.0.0.1:2525' } });
    mailingKey = await mailing.key();
  });
  afterAll(async () => {
    await mailing?.close();
  });

  it('without a key: still 4 statements in 2 round trips, and the confirmation is in the outbox', async () => {
    const product = await makeProduct(mailing.db, { slug: 'mailed' });
    const { cartId } = await createCart(mailing, mailingKey, [{ productSlug: product.slug, quantity: 1 }]);
    expectAtMost(await statementsOf('checkout.create_order', { cartId, ...CONTACT }, {}, mailing, mailingKey), 4, 2);
    expect(await mailing.db.emailOutbox.count({ where: { kind: 'order_confirmation' } })).toBe(1);
  });
});

function expectAtMost(counted: { statements: number; roundTrips: number }, statements: number, roundTrips: number) {
  expect(counted.statements, 'statements').toBeLessThanOrEqual(statements);
  expect(counted.roundTrips, 'round trips').toBeLessThanOrEqual(roundTrips);
}
