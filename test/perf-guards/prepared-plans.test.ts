// A named (prepared) statement only saves planning when PostgreSQL adopts its generic plan, which it does after
// five executions unless the generic plan looks dearer than the custom ones. A LIMIT or OFFSET parameter makes it
// look ten times dearer (PostgreSQL assumes a tenth of the rows), and the category page's statement was planned
// again on every call: 1 ms per page. This runs the storefront pages and the prepared reads a dozen times each on
// an app with one database connection, and requires every named statement of that session to run on its generic
// plan.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { seedBenchData } from '../../bench/seed.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ poolMax: 1 });
  // Enough products per category (15,000 over 50) that a tenth of them is more than a page: with the demo's few
  // the generic plan would win anyway and the guard would prove nothing.
  await seedBenchData(t.url, 15_000);
}, 120_000);
afterAll(() => t?.close());

it('every prepared statement of the storefront, the catalog reads and the bench writes runs on its generic plan', async () => {
  const [product] = await t.db.product.findMany({ where: { deletedAt: null }, take: 1 });
  const [category] = await t.db.category.findMany({ take: 1 });
  const pages = ['/', `/products/${product.slug}`, `/categories/${category.slug}`, '/services', '/services/no-such-service', '/info/no-such-page'];
  const tools: [string, unknown][] = [['products.get', { slug: product.slug }], ['products.search', {}], ['categories.list', {}]];
  for (let i = 0; i < 12; i++) {
    for (const url of pages) expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBeLessThan(500);
    for (const [name, body] of tools) expect((await t.call(name, body)).statusCode, name).toBe(200);
  }
  // The writes of the bench (each its own data, so every call really writes).
  const key = await t.key();
  // Products sold in one form: the bench data sells 1 % in 20 variants, whose own price is derived.
  const products = await t.db.product.findMany({ where: { deletedAt: null, stock: { gt: 10 }, options: { none: {} } }, take: 12 });
  for (const [i, p] of products.entries()) {
    expect((await t.call('products.update', { slug: p.slug, patch: { priceDkk: 10_000 + i } }, key, { headers: { 'idempotency-key': `u-${i}` } })).statusCode).toBe(200);
    const cart = (await t.call('cart.create', {}, key)).json().result as { cartId: string };
    expect((await t.call('cart.add_item', { cartId: cart.cartId, productSlug: p.slug, quantity: 1 }, key)).statusCode).toBe(200);
    const order = await t.call('checkout.create_order', { cartId: cart.cartId, email: 'a@example.com', shippingName: 'A', shippingAddress: 'Vej 1', shippingZip: '1000', shippingCity: 'By' }, key, { headers: { 'idempotency-key': `c-${i}` } });
    expect(order.statusCode, order.body).toBe(200);
  }
  const statements = await queryRows<{ name: string; generic_plans: bigint; custom_plans: bigint }>(
    t.db,
    Prisma.sql`SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name IS NOT NULL AND name <> ''`,
  );
  const exercised = statements.filter((s) => s.generic_plans + s.custom_plans >= 10);
  expect(exercised.map((s) => s.name)).toEqual(expect.arrayContaining(['storefront_product', 'storefront_category', 'products_get', 'cart_lock_checkout', 'record_place_order_audit_events_idempotency']));
  expect(exercised.filter((s) => s.generic_plans === 0n).map((s) => `${s.name}: ${s.custom_plans} custom plans`)).toEqual([]);
});

// A cart is a handful of lines, but the planner learns lines per cart from what ANALYZE last saw (or guesses 0.5 % of
// the table before it ran): with one cart of thousands of lines, or none analyzed, the checkout's generic cart read
// hashed every variant and product row (35 ms a checkout in the bench). The cart statements look lines up by key and
// a migration fixes the statistic; this builds such a table and reads the generic plan, with and without it.
it('the checkout cart read stays on its indexes after ANALYZE has seen one huge cart', async () => {
  const key = await t.key();
  const apiKeyId = (await t.db.apiKey.findFirstOrThrow({ orderBy: { createdAt: 'desc' } })).id;
  await t.db.$executeRaw`INSERT INTO "Cart" (id, "apiKeyId", status, "createdAt", "updatedAt") VALUES ('huge-cart', ${apiKeyId}, 'open', now(), now())`;
  await t.db.$executeRaw`INSERT INTO "CartItem" (id, "cartId", "productId", "variantId", quantity)
    SELECT 'huge-' || v.id, 'huge-cart', v."productId", v.id, 1 FROM "ProductVariant" v ORDER BY v.id LIMIT 3000`;
  await t.db.$executeRaw`ANALYZE "CartItem"`;
  // One more checkout prepares the statement on the app's one connection, then its generic plan is read there.
  const [p] = await t.db.product.findMany({ where: { deletedAt: null, stock: { gt: 10 }, options: { none: {} } }, skip: 20, take: 1 });
  const cart = (await t.call('cart.create', {}, key)).json().result as { cartId: string };
  expect((await t.call('cart.add_item', { cartId: cart.cartId, productSlug: p.slug, quantity: 1 }, key)).statusCode).toBe(200);
  expect((await t.call('checkout.create_order', { cartId: cart.cartId, email: 'a@example.com', shippingName: 'A', shippingAddress: 'Vej 1', shippingZip: '1000', shippingCity: 'By' }, key)).statusCode).toBe(200);
  // Every read of a variant or product row is a lookup by key (a row or so per line), never a walk of the table.
  type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Plan Rows': number; Plans?: PlanNode[] };
  const scans = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(scans)];
  const wideReads = async () => {
    const plan = await t.db.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL plan_cache_mode = force_generic_plan`;
      return tx.$queryRaw<unknown>`EXPLAIN (FORMAT JSON) EXECUTE cart_lock_checkout('huge-cart')`;
    });
    const [{ 'QUERY PLAN': [{ Plan: root }] }] = plan as [{ 'QUERY PLAN': [{ Plan: PlanNode }] }];
    const reads = scans(root).filter((n) => n['Relation Name'] === 'ProductVariant' || n['Relation Name'] === 'Product');
    expect(reads.map((n) => n['Relation Name']).sort()).toEqual(['Product', 'ProductVariant']);
    return reads.filter((n) => n['Plan Rows'] > 10).map((n) => `${n['Node Type']} on ${n['Relation Name']}: ${n['Plan Rows']} rows`);
  };
  expect(await wideReads()).toEqual([]);
  // The same without the migration's statistic (ANALYZE has seen the huge cart): the statement's shape alone holds.
  await t.db.$executeRaw`ALTER TABLE "CartItem" ALTER COLUMN "cartId" RESET (n_distinct)`;
  await t.db.$executeRaw`ANALYZE "CartItem"`;
  try {
    expect(await wideReads()).toEqual([]);
  } finally {
    await t.db.$executeRaw`ALTER TABLE "CartItem" ALTER COLUMN "cartId" SET (n_distinct = -0.2)`;
  }
});
