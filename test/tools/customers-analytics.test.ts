import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../../src/domain/order-transitions.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { expectScopeEnforced, okResult } from '../helpers/calls.ts';
import { makeOrder, makeProduct } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['customer:read', 'analytics:read']);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'OrderItem', 'Order');
});

const day = (n: number) => new Date(Date.UTC(2026, 2, 1 + n, 10));

describe('POST /api/v1/tools/customers.list', () => {
  it('groups orders by email case-insensitively, counting revenue statuses only in totalSpentDkk', async () => {
    await makeOrder(t.db, { email: 'Ann@Example.com', shippingName: 'Ann Old', status: 'paid', totalDkk: 10_000, createdAt: day(1) });
    await makeOrder(t.db, { email: 'ann@example.com', shippingName: 'Ann New', status: 'completed', totalDkk: 5_000, createdAt: day(5) });
    await makeOrder(t.db, { email: 'ANN@EXAMPLE.COM', status: 'cancelled', totalDkk: 99_999, createdAt: day(3) });
    await makeOrder(t.db, { email: 'ann@example.com', status: 'pending_payment', totalDkk: 7_000, createdAt: day(4) });
    await makeOrder(t.db, { email: 'bo@example.com', shippingName: 'Bo', status: 'refunded', totalDkk: 3_000, createdAt: day(2) });
    const result = okResult<Record<string, unknown>[]>(await t.call('customers.list', {}, key));
    expect(result).toEqual([
      { email: 'ann@example.com', name: 'Ann New', orderCount: 4, totalSpentDkk: 15_000, firstOrderAt: day(1).toISOString(), lastOrderAt: day(5).toISOString() },
      { email: 'bo@example.com', name: 'Bo', orderCount: 1, totalSpentDkk: 0, firstOrderAt: day(2).toISOString(), lastOrderAt: day(2).toISOString() },
    ]);
  });

  it('finds customers by part of the email, literally', async () => {
    await makeOrder(t.db, { email: 'a_b@example.com' });
    await makeOrder(t.db, { email: 'axb@example.com' });
    await makeOrder(t.db, { email: 'c@other.dk' });
    const emails = async (query: string) => okResult<{ email: string }[]>(await t.call('customers.list', { query }, key)).map((c) => c.email);
    expect(await emails('A_B')).toEqual(['a_b@example.com']);
    expect(await emails('example')).toHaveLength(2);
    expect(await emails('%')).toEqual([]);
  });

  it('returns 20 customers by default and at most limit', async () => {
    for (let i = 0; i < 23; i++) await makeOrder(t.db, { email: `c${i}@example.com`, createdAt: day(i) });
    expect(okResult<unknown[]>(await t.call('customers.list', {}, key))).toHaveLength(20);
    expect(okResult<{ email: string }[]>(await t.call('customers.list', { limit: 2 }, key)).map((c) => c.email)).toEqual(['c22@example.com', 'c21@example.com']);
  });

  it.each([[{ limit: 0 }], [{ limit: 101 }], [{ limit: '5' }], [{ query: '' }], [{ email: 'x@example.com' }]])('refuses %j with 400', async (body) => {
    expectProblem(await t.call('customers.list', body, key), 400, 'invalid_request');
  });

  it('needs customer:read', async () => {
    await expectScopeEnforced(t, 'customers.list', 'customer:read');
  });
});

describe('POST /api/v1/tools/customers.get', () => {
  it('returns the customer with their 10 most recent orders', async () => {
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push((await makeOrder(t.db, { email: i % 2 ? 'Eve@Example.com' : 'eve@example.com', status: 'paid', totalDkk: 1000, createdAt: day(i) })).id);
    await makeOrder(t.db, { email: 'someone@example.com' });
    const result = okResult<{ recentOrders: { id: string }[] } & Record<string, unknown>>(await t.call('customers.get', { email: 'EVE@example.com' }, key));
    expect(result).toMatchObject({ email: 'eve@example.com', orderCount: 12, totalSpentDkk: 12_000, firstOrderAt: day(0).toISOString(), lastOrderAt: day(11).toISOString() });
    expect(result.recentOrders.map((o) => o.id)).toEqual(ids.slice(2).reverse());
    expect(Object.keys(result.recentOrders[0]).sort()).toEqual([
      'createdAt', 'discountCode', 'discountDkk', 'email', 'id', 'itemCount', 'items', 'shippingDkk', 'shippingName', 'status', 'subtotalDkk', 'totalDkk',
    ]);
  });

  it('answers 404 for an email without orders and 400 for a bad email', async () => {
    expectProblem(await t.call('customers.get', { email: 'nobody@example.com' }, key), 404, 'not_found');
    expectProblem(await t.call('customers.get', { email: 'nobody' }, key), 400, 'invalid_request');
    expectProblem(await t.call('customers.get', {}, key), 400, 'invalid_request');
  });

  it('needs customer:read', async () => {
    await expectScopeEnforced(t, 'customers.get', 'customer:read', { email: 'x@example.com' });
  });
});

describe('POST /api/v1/tools/analytics.summary', () => {
  const range = { fromDate: day(0).toISOString(), toDate: day(9).toISOString() };
  const summary = async (body: Record<string, unknown> = range) => okResult<Record<string, unknown>>(await t.call('analytics.summary', body, key));

  it('sums revenue over revenue statuses, counts every order, and ranks products by revenue', async () => {
    const a = await makeProduct(t.db, { slug: 'alpha' });
    const b = await makeProduct(t.db, { slug: 'beta' });
    await makeOrder(t.db, { status: 'paid', totalDkk: 10_000, isAiGenerated: true, createdAt: day(1), items: [{ productId: a.id, quantity: 2, unitPriceDkk: 4000, productName: 'Alpha' }] });
    await makeOrder(t.db, { status: 'shipped', totalDkk: 5_001, createdAt: day(2), items: [{ productId: b.id, quantity: 1, unitPriceDkk: 5001, productName: 'Beta' }] });
    await makeOrder(t.db, { status: 'partial_refund', totalDkk: 2_000, createdAt: day(3), items: [{ productId: a.id, quantity: 1, unitPriceDkk: 2000, productName: 'Alpha v2' }] });
    await makeOrder(t.db, { status: 'cancelled', totalDkk: 90_000, isAiGenerated: true, createdAt: day(4), items: [{ productId: b.id, quantity: 9, unitPriceDkk: 10_000 }] });
    await makeOrder(t.db, { status: 'pending_payment', totalDkk: 1_000, isAiGenerated: true, createdAt: day(9) });
    await makeOrder(t.db, { status: 'paid', totalDkk: 77_777, createdAt: day(10) }); // outside the range

    const result = await summary();
    expect(result).toMatchObject({
      fromDate: range.fromDate, toDate: range.toDate,
      revenueDkk: 17_001, revenueOrderCount: 3,
      averageOrderValueDkk: 5667, // 17001 / 3 = 5667.0
      orderCount: 5, agentOrderCount: 3, agentOrderShare: 0.6,
      revenueStatuses: ['paid', 'processing', 'shipped', 'delivered', 'completed', 'partial_refund'],
    });
    expect(result.ordersByStatus).toEqual({ ...Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])), paid: 1, shipped: 1, partial_refund: 1, cancelled: 1, pending_payment: 1 });
    expect(result.topProducts).toEqual([
      { productId: a.id, productSlug: 'alpha', productName: 'Alpha v2', quantity: 3, revenueDkk: 10_000 },
      { productId: b.id, productSlug: 'beta', productName: 'Beta', quantity: 1, revenueDkk: 5001 },
    ]);
  });

  it('rounds the average order value half-up to the øre', async () => {
    await makeOrder(t.db, { status: 'paid', totalDkk: 1, createdAt: day(1) });
    await makeOrder(t.db, { status: 'paid', totalDkk: 2, createdAt: day(1) });
    expect((await summary()).averageOrderValueDkk).toBe(2); // 1.5 → 2
    await makeOrder(t.db, { status: 'paid', totalDkk: 0, createdAt: day(1) });
    expect((await summary()).averageOrderValueDkk).toBe(1); // 1.0
  });

  it('reports zeros for a range without orders', async () => {
    expect(await summary()).toMatchObject({ revenueDkk: 0, revenueOrderCount: 0, averageOrderValueDkk: 0, orderCount: 0, agentOrderShare: 0, topProducts: [] });
  });

  it('defaults to the last 30 days up to now', async () => {
    await makeOrder(t.db, { status: 'paid', totalDkk: 100, createdAt: new Date(Date.now() - 29 * 86_400_000) });
    await makeOrder(t.db, { status: 'paid', totalDkk: 1_000, createdAt: new Date(Date.now() - 31 * 86_400_000) });
    const result = await summary({});
    expect(result.revenueDkk).toBe(100);
    expect(Date.parse(result.toDate as string) - Date.parse(result.fromDate as string)).toBe(30 * 86_400_000);
  });

  it('limits top products with topProductsLimit', async () => {
    for (let i = 0; i < 3; i++) {
      const p = await makeProduct(t.db);
      await makeOrder(t.db, { status: 'paid', createdAt: day(1), items: [{ productId: p.id, quantity: 1, unitPriceDkk: 1000 * (i + 1) }] });
    }
    expect((await summary({ ...range, topProductsLimit: 2 })).topProducts).toHaveLength(2);
    expect((await summary(range)).topProducts).toHaveLength(3);
  });

  it.each([
    ['a date without time', { fromDate: '2026-03-01' }],
    ['a non-date', { toDate: 'now' }],
    ['topProductsLimit 0', { topProductsLimit: 0 }],
    ['topProductsLimit 51', { topProductsLimit: 51 }],
    ['an unknown field', { groupBy: 'day' }],
  ])('refuses %s with 400', async (_name, body) => {
    expectProblem(await t.call('analytics.summary', body, key), 400, 'invalid_request');
  });

  it('refuses fromDate after toDate with 422 invalid_date_range', async () => {
    const body = { fromDate: day(5).toISOString(), toDate: day(1).toISOString() };
    expectProblem(await t.call('analytics.summary', body, key), 422, 'invalid_date_range');
  });

  it('needs analytics:read', async () => {
    await expectScopeEnforced(t, 'analytics.summary', 'analytics:read');
  });
});
