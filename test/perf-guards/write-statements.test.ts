// The number of SQL statements one write sends, so the round trips removed from the write path (docs/performance.md,
// "Writes") do not creep back. Counted at the pg driver, under Prisma and the hand-written SQL alike: every
// statement the app's connections send, BEGIN and COMMIT included. A change that needs more must raise the number
// here on purpose.
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createCart, makeDiscount, makeProduct } from '../helpers/factories.ts';

let t: TestApp;
let key: string;
let sent: string[] | null = null;

const query = pg.Client.prototype.query;
beforeAll(async () => {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    sent?.push(typeof first === 'string' ? first : String(first?.text));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
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
async function statementsOf(name: string, body: unknown, headers: Record<string, string> = {}) {
  sent = [];
  try {
    okResult(await t.call(name, body, key, { headers }));
    return sent.filter((sql) => !sql.includes('"ApiKey"'));
  } finally {
    sent = null;
  }
}

const CONTACT = CHECKOUT_CONTACT;

const cartOf = async (...slugs: string[]) => (await createCart(t, key, slugs.map((productSlug) => ({ productSlug, quantity: 1 })))).cartId;

// A write's outgoing events (the webhook outbox, docs/webhooks.md) are CTEs of recordWrite's one statement with
// its audit entries and stored outcome, and so is a checkout's order (deferWrite): they add no statement. The
// Idempotency-Key's claim is sent with BEGIN, as one statement.
describe('statements per write (BEGIN and COMMIT included)', () => {
  it('products.update: 4, and 5 with an Idempotency-Key', async () => {
    await makeProduct(t.db, { slug: 'lamp' });
    expect((await statementsOf('products.update', { slug: 'lamp', patch: { priceDkk: 12_300 } })).length).toBeLessThanOrEqual(4);
    expect((await statementsOf('products.update', { slug: 'lamp', patch: { priceDkk: 12_400 } }, { 'idempotency-key': 'u-1' })).length).toBeLessThanOrEqual(5);
  });

  it('checkout of two products with a discount code and an Idempotency-Key: 5 (4 in its transaction)', async () => {
    await makeProduct(t.db, { slug: 'left' });
    await makeProduct(t.db, { slug: 'right' });
    await makeDiscount(t.db, { code: 'TENOFF' });
    const cartId = await cartOf('left', 'right');
    const body = { cartId, ...CONTACT, discountCode: 'TENOFF' };
    expect((await statementsOf('checkout.create_order', body, { 'idempotency-key': 'c-1' })).length).toBeLessThanOrEqual(5);
    // The replay: one read, no transaction.
    expect((await statementsOf('checkout.create_order', body, { 'idempotency-key': 'c-1' })).length).toBeLessThanOrEqual(1);
  });

  it('checkout without a key: 4', async () => {
    await makeProduct(t.db, { slug: 'solo' });
    expect((await statementsOf('checkout.create_order', { cartId: await cartOf('solo'), ...CONTACT })).length).toBeLessThanOrEqual(4);
  });

  it('cart.add_item: 5', async () => {
    await makeProduct(t.db, { slug: 'first' });
    await makeProduct(t.db, { slug: 'second' });
    const cartId = await cartOf('first');
    expect((await statementsOf('cart.add_item', { cartId, productSlug: 'second', quantity: 2 })).length).toBeLessThanOrEqual(5);
  });
});
