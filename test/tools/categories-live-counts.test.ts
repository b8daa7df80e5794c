// categories.list reads live-product counts that a trigger on "Product" maintains (migration
// 20261126030000_category_product_counts). Over HTTP against real PostgreSQL, after every kind of product change —
// create, move between categories, soft delete, revert, hard delete, rolled-back and concurrent writes, TRUNCATE —
// the answer equals a count(*) of the rows themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createCategory, createProduct } from '../helpers/factories.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['products:write', 'categories:write', 'audit:read', 'audit:revert']);
  for (const slug of ['counts-a', 'counts-b']) await createCategory(t, key, slug);
});
afterAll(async () => {
  await t?.close();
});

const call = async (name: string, body: Record<string, unknown>) => {
  const res = await t.call(name, body, key);
  expect(res.statusCode, `${name} ${res.body}`).toBe(200);
  return res.json().result;
};
const product = (slug: string, categorySlug?: string) => createProduct(t, key, { slug, ...(categorySlug ? { categorySlug } : {}) });

/** categories.list's counts, and the same counts from the rows themselves. */
async function counts() {
  const res = await t.call('categories.list', {});
  expect(res.statusCode).toBe(200);
  const listed = Object.fromEntries((res.json().result as { slug: string; productCount: number }[]).map((c) => [c.slug, c.productCount]));
  const truth = await t.db.$queryRaw<{ slug: string; n: bigint }[]>(Prisma.sql`
    SELECT c.slug, count(p.id) AS n FROM "Category" c
    LEFT JOIN "Product" p ON p."categoryId" = c.id AND p."deletedAt" IS NULL
    GROUP BY c.slug`);
  expect(listed).toEqual(Object.fromEntries(truth.map((r) => [r.slug, Number(r.n)])));
  return listed;
}

describe('categories.list counts (maintained by a trigger)', () => {
  it('follow creates, moves, soft deletes, reverts and hard deletes', async () => {
    expect(await counts()).toMatchObject({ 'counts-a': 0, 'counts-b': 0 });
    await product('c-1', 'counts-a');
    await product('c-2', 'counts-a');
    await product('c-3');
    expect(await counts()).toMatchObject({ 'counts-a': 2, 'counts-b': 0 });

    await call('products.update', { slug: 'c-1', patch: { categorySlug: 'counts-b' } });
    await call('products.update', { slug: 'c-2', patch: { stock: 7, priceDkk: 12_000 } });
    expect(await counts()).toMatchObject({ 'counts-a': 1, 'counts-b': 1 });

    await call('products.delete', { slug: 'c-2', confirm: true });
    expect(await counts()).toMatchObject({ 'counts-a': 0, 'counts-b': 1 });
    const [deletion] = await t.db.auditEntry.findMany({ where: { tool: 'products.delete' }, orderBy: { at: 'desc' }, take: 1 });
    await call('audit.revert', { auditId: deletion!.id, confirm: true });
    expect(await counts()).toMatchObject({ 'counts-a': 1, 'counts-b': 1 });

    await t.db.$executeRaw`DELETE FROM "Product" WHERE slug = 'c-1'`;
    expect(await counts()).toMatchObject({ 'counts-a': 1, 'counts-b': 0 });
  });

  it('leave no trace of a write that fails or is only previewed', async () => {
    const before = await counts();
    const dry = await t.call('products.create', { name: 'Dry run', slug: 'c-dry', description: 'Never written.', priceDkk: 1, stock: 1, categorySlug: 'counts-b', dryRun: true }, key);
    expect(dry.statusCode, dry.body).toBe(200);
    const duplicate = await t.call('products.create', { name: 'Duplicate', slug: 'c-3', description: 'Slug taken.', priceDkk: 1, stock: 1, categorySlug: 'counts-b' }, key);
    expect(duplicate.statusCode).toBe(409);
    expect(await counts()).toEqual(before);
  });

  it('stay exact under concurrent creates in one category', async () => {
    const before = (await counts())['counts-b']!;
    await Promise.all(Array.from({ length: 12 }, (_, i) => product(`c-par-${i}`, 'counts-b')));
    expect((await counts())['counts-b']).toBe(before + 12);
  });

  it('are reset by TRUNCATE, which fires no row triggers', async () => {
    await t.db.$executeRaw`TRUNCATE "Product" CASCADE`;
    expect(await counts()).toMatchObject({ 'counts-a': 0, 'counts-b': 0 });
    await product('c-after', 'counts-a');
    expect(await counts()).toMatchObject({ 'counts-a': 1 });
  });
});
