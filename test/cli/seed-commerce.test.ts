import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../src/cli/seed/catalog.ts';
import { DEMO_DISCOUNTS, demoOrderId, seedCommerce } from '../../src/cli/seed/commerce.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t?.close(); });

describe('seedCommerce', () => {
  it('seeds discount codes and at least 10 orders with items over several weeks, idempotently', async () => {
    await seedCatalog(t.db);
    expect(await seedCommerce(t.db)).toEqual({ discountCodes: DEMO_DISCOUNTS.length, orders: 12 });
    await t.db.order.update({ where: { id: demoOrderId(1) }, data: { status: 'paid' } });
    await seedCommerce(t.db);

    const orders = await t.db.order.findMany({ include: { items: true }, orderBy: { createdAt: 'asc' } });
    expect(orders).toHaveLength(12);
    expect(orders.every((o) => o.items.length > 0)).toBe(true);
    expect((await t.db.order.findUniqueOrThrow({ where: { id: demoOrderId(1) } })).status).toBe('paid');
    const statuses = new Set(orders.map((o) => o.status));
    for (const s of ['paid', 'pending_payment', 'shipped', 'cancelled'] as const) expect(statuses.has(s), s).toBe(true);
    const spanDays = (orders[11].createdAt.getTime() - orders[0].createdAt.getTime()) / 86_400_000;
    expect(spanDays).toBeGreaterThan(21);
    for (const o of orders) {
      const subtotal = o.items.reduce((s, i) => s + i.unitPriceDkk * i.quantity, 0n);
      expect(o.subtotalDkk, o.id).toBe(subtotal);
      expect(o.totalDkk, o.id).toBe(o.subtotalDkk - o.discountDkk + o.shippingDkk);
    }
    expect(await t.db.discountCode.count()).toBe(DEMO_DISCOUNTS.length);
    expect((await t.db.discountCode.findUniqueOrThrow({ where: { code: 'WELCOME10' } })).usageCount).toBe(2n);
    expect((await t.db.discountCode.findUniqueOrThrow({ where: { code: 'ONCE50' } })).usageCount).toBe(0n);
  });

  it('produces data the tools serve', async () => {
    const key = await t.key();
    expect(okResult<unknown[]>(await t.call('orders.list', { limit: 100 }, key)).length).toBe(12);
    expect(okResult<unknown[]>(await t.call('discounts.list', {}, key)).length).toBe(DEMO_DISCOUNTS.length);
    const summary = okResult<{ orderCount: number; revenueDkk: number }>(await t.call('analytics.summary', {}, key));
    expect(summary.orderCount).toBeGreaterThanOrEqual(10);
    expect(summary.revenueDkk).toBeGreaterThan(0);
    const customers = okResult<{ email: string; orderCount: number }[]>(await t.call('customers.list', { query: 'mette' }, key));
    expect(customers).toEqual([expect.objectContaining({ email: 'mette@example.dk', orderCount: 2 })]);
  });
});
