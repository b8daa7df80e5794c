// A checkout reads its cart, products and discount code in one statement and locks the products and the code only in
// its final statement (docs/performance.md, "Writes"). These tests change those rows in another transaction that
// holds their locks while the checkout waits for them, then commit: the checkout must notice, run again and answer
// from the rows as they are, leaving exactly one order (or none) behind.
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { resetTables, untilBlockedOn } from '../helpers/database.ts';
import { CHECKOUT_CONTACT, createCart, makeDiscount, makeProduct } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let agent: string;
let other: pg.Client;
beforeAll(async () => {
  t = await createTestApp();
  ({ key: agent } = await createKey(t.db, { name: 'shopping-agent', scopes: ['cart:write'] }));
  other = new pg.Client({ connectionString: t.url });
  await other.connect();
});
afterAll(async () => {
  await other?.end();
  await t?.close();
});
beforeEach(async () => {
  await resetTables(t.db, 'Cart', 'OrderItem', 'Order', 'Product', 'DiscountCode', 'ShopSettings', 'AuditEntry');
});

type Placed = { orderId: string; items: { productSlug: string; unitPriceDkk: number; quantity: number }[]; subtotalDkk: number; discountDkk: number; totalDkk: number };

/**
 * Runs `change` in a transaction of another connection, starts the checkout, waits until the checkout waits for a
 * lock that transaction holds, then commits it: the checkout read the rows before the change and locks them after.
 */
async function checkoutWhileChanged(cartId: string, change: string, body: Record<string, unknown> = {}) {
  await other.query('BEGIN');
  try {
    await other.query(change);
    const response = t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT, ...body }, agent);
    await untilBlockedOn(other, 'the checkout');
    await other.query('COMMIT');
    return await response;
  } finally {
    // After COMMIT a no-op (with a warning); after a failure it ends the transaction so the next test starts clean.
    await other.query('ROLLBACK');
  }
}

const cartOf = async (...items: [slug: string, quantity: number][]) =>
  (await createCart(t, agent, items.map(([productSlug, quantity]) => ({ productSlug, quantity })))).cartId;

describe('checkout.create_order when its rows change while it runs', () => {
  it('prices the order at a price changed before it locked the product', async () => {
    const p = await makeProduct(t.db, { slug: 'moving', priceDkk: 10_000, stock: 5 });
    const cartId = await cartOf(['moving', 2]);
    const placed = okResult<Placed>(await checkoutWhileChanged(cartId, `UPDATE "Product" SET "priceDkk" = 12500 WHERE slug = 'moving'`));
    expect(placed.items).toEqual([expect.objectContaining({ productSlug: 'moving', unitPriceDkk: 12_500, quantity: 2 })]);
    expect(placed.subtotalDkk).toBe(25_000);
    const order = await t.db.order.findUniqueOrThrow({ where: { id: placed.orderId }, include: { items: true } });
    expect(order.subtotalDkk).toBe(25_000n);
    expect(order.items.map((i) => i.unitPriceDkk)).toEqual([12_500n]);
    expect((await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).stock).toBe(3n);
    expect(await t.db.order.count()).toBe(1);
    expect(await t.db.auditEntry.count({ where: { tool: 'checkout.create_order', entityType: 'order' } })).toBe(1);
  });

  it('answers out_of_stock, changing nothing, when the units were sold before it locked the product', async () => {
    const p = await makeProduct(t.db, { slug: 'scarce', stock: 2 });
    const cartId = await cartOf(['scarce', 2]);
    const res = await checkoutWhileChanged(cartId, `UPDATE "Product" SET stock = 1 WHERE slug = 'scarce'`);
    expectProblem(res, 422, 'out_of_stock');
    expect(res.json().detail).toBe('"scarce": 2 requested, 1 in stock.');
    expect((await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).stock).toBe(1n);
    expect(await t.db.cart.findUniqueOrThrow({ where: { id: cartId } })).toMatchObject({ status: 'open', orderId: null });
    expect(await t.db.order.count()).toBe(0);
    expect(await t.db.auditEntry.count({ where: { tool: 'checkout.create_order' } })).toBe(0);
  });

  it('takes a line added to the cart while it waited for the cart', async () => {
    await makeProduct(t.db, { slug: 'first', priceDkk: 1_000, stock: 5 });
    const late = await makeProduct(t.db, { slug: 'late', priceDkk: 3_000, stock: 5 });
    const cartId = await cartOf(['first', 1]);
    const placed = okResult<Placed>(await checkoutWhileChanged(cartId, `
      WITH locked AS (SELECT id FROM "Cart" WHERE id = '${cartId}' FOR UPDATE)
      INSERT INTO "CartItem" (id, "cartId", "productId", quantity) SELECT 'late-line', id, '${late.id}', 1 FROM locked`));
    expect(placed.items.map((i) => i.productSlug).sort()).toEqual(['first', 'late']);
    expect(placed.subtotalDkk).toBe(4_000);
    expect((await t.db.product.findUniqueOrThrow({ where: { id: late.id } })).stock).toBe(4n);
    expect(await t.db.orderItem.count({ where: { orderId: placed.orderId } })).toBe(2);
  });

  it('applies a discount code as it is when it locks it, counting one use', async () => {
    await makeProduct(t.db, { slug: 'item', priceDkk: 10_000, stock: 5 });
    await makeDiscount(t.db, { code: 'SHIFTING', type: 'percent', value: 10 });
    const cartId = await cartOf(['item', 1]);
    const placed = okResult<Placed>(await checkoutWhileChanged(cartId, `UPDATE "DiscountCode" SET value = 20 WHERE code = 'SHIFTING'`, { discountCode: 'shifting' }));
    expect(placed.discountDkk).toBe(2_000);
    expect((await t.db.discountCode.findUniqueOrThrow({ where: { code: 'SHIFTING' } })).usageCount).toBe(1n);
    expect(await t.db.order.count()).toBe(1);
  });

  it('answers discount_unavailable, changing nothing, when the code was used up before it locked it', async () => {
    const p = await makeProduct(t.db, { slug: 'item', stock: 5 });
    await makeDiscount(t.db, { code: 'LASTONE', usageLimit: 1 });
    const cartId = await cartOf(['item', 1]);
    const res = await checkoutWhileChanged(cartId, `UPDATE "DiscountCode" SET "usageCount" = 1 WHERE code = 'LASTONE'`, { discountCode: 'LASTONE' });
    expectProblem(res, 422, 'discount_unavailable');
    expect((await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).stock).toBe(5n);
    expect(await t.db.order.count()).toBe(0);
  });
});
