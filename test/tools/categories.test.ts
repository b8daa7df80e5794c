// The category tools over HTTP on real PostgreSQL (docs/architecture.md, docs/errors.md): responses and the
// database state after them, one audit entry per successful write, none (and no change) for a failed one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey } from '../../src/auth/key-format.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createProduct } from '../helpers/factories.ts';
import { catalogWriteAssertions } from '../helpers/catalog-writes.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
let keyId: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['products:write', 'categories:write']);
  keyId = parseKey(key)!.id;
});
afterAll(async () => {
  await t?.close();
});

const call = (name: string, body: unknown) => t.call(name, body, key);
const list = async () => {
  const res = await t.call('categories.list', {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as { id: string; slug: string; name: string; description: string | null; productCount: number }[];
};
const category = (slug: string) => t.db.category.findUnique({ where: { slug } });
const { snapshot, auditCount, latestAudit, expectRefused, expectOneAuditEntry } = catalogWriteAssertions(
  () => t.db,
  call,
  'category',
  () => keyId,
);

const product = async (categorySlug: string) => (await createProduct(t, key, { categorySlug })).slug;

describe('categories.list', () => {
  it('POST /api/v1/tools/categories.list on an empty store is []', async () => {
    expect(await list()).toEqual([]);
  });

  it('lists every category by name with exactly the declared fields', async () => {
    await call('categories.upsert', { slug: 'zulu', name: 'Zulu frames', description: 'Last by name' });
    await call('categories.upsert', { slug: 'alpha', name: 'Alpha frames' });
    const rows = await list();
    expect(rows.map((r) => r.slug)).toEqual(['alpha', 'zulu']);
    for (const r of rows) expect(Object.keys(r).sort()).toEqual(['description', 'id', 'name', 'productCount', 'slug']);
    const zulu = await category('zulu');
    expect(rows[1]).toEqual({ id: zulu!.id, slug: 'zulu', name: 'Zulu frames', description: 'Last by name', productCount: 0 });
    expect(rows[0].description).toBeNull();
  });

  it('productCount counts live products only', async () => {
    await call('categories.upsert', { slug: 'counted', name: 'Counted' });
    const [a, b, c] = [await product('counted'), await product('counted'), await product('counted')];
    expect((await list()).find((r) => r.slug === 'counted')!.productCount).toBe(3);
    expect((await call('products.delete', { slug: b, confirm: true })).statusCode).toBe(200);
    expect((await list()).find((r) => r.slug === 'counted')!.productCount).toBe(2);
    const cat = await category('counted');
    expect(await t.db.product.count({ where: { categoryId: cat!.id } })).toBe(3);
    expect(await t.db.product.count({ where: { categoryId: cat!.id, deletedAt: null } })).toBe(2);
    expect([a, c]).toHaveLength(2);
  });

  it('takes only an empty object', async () => {
    expectProblem(await t.call('categories.list', { slug: 'x' }), 400, 'invalid_request');
    expectProblem(await t.call('categories.list', []), 400, 'invalid_body');
  });
});

describe('categories.upsert', () => {
  it('POST /api/v1/tools/categories.upsert creates a category when the slug is new', async () => {
    const { res, entry } = await expectOneAuditEntry('categories.upsert', { slug: 'sunglasses', name: 'Sunglasses', description: 'UV400' });
    const db = await category('sunglasses');
    expect(res.json().result).toEqual({ id: db!.id, slug: 'sunglasses', name: 'Sunglasses' });
    expect(db).toMatchObject({ name: 'Sunglasses', description: 'UV400' });
    expect(entry).toMatchObject({ entityId: db!.id, before: null });
    expect(entry.after).toMatchObject({ slug: 'sunglasses', name: 'Sunglasses', description: 'UV400' });
  });

  it('updates the name of an existing slug and keeps the description when it is omitted', async () => {
    await call('categories.upsert', { slug: 'readers', name: 'Readers', description: 'Reading glasses' });
    const id = (await category('readers'))!.id;
    const { res, entry } = await expectOneAuditEntry('categories.upsert', { slug: 'readers', name: 'Reading glasses' });
    expect(res.json().result).toEqual({ id, slug: 'readers', name: 'Reading glasses' });
    expect(await category('readers')).toMatchObject({ id, name: 'Reading glasses', description: 'Reading glasses' });
    expect(entry.before).toMatchObject({ name: 'Readers', description: 'Reading glasses' });
    expect(entry.after).toMatchObject({ name: 'Reading glasses', description: 'Reading glasses' });
    expect(await t.db.category.count({ where: { slug: 'readers' } })).toBe(1);
  });

  it('replaces the description when given, and clears it with null', async () => {
    await call('categories.upsert', { slug: 'sport', name: 'Sport', description: 'Old' });
    await expectOneAuditEntry('categories.upsert', { slug: 'sport', name: 'Sport', description: 'New' });
    expect((await category('sport'))!.description).toBe('New');
    await expectOneAuditEntry('categories.upsert', { slug: 'sport', name: 'Sport', description: null });
    expect((await category('sport'))!.description).toBeNull();
  });

  it.each([
    ['no slug', { name: 'Name' }, 'slug'],
    ['no name', { slug: 'no-name' }, 'name'],
    ['a 1-character slug', { slug: 'a', name: 'Name' }, 'slug'],
    ['an upper-case slug', { slug: 'Upper', name: 'Name' }, 'slug'],
    ['a slug with spaces', { slug: 'two words', name: 'Name' }, 'slug'],
    ['a slug with an underscore', { slug: 'snake_case', name: 'Name' }, 'slug'],
    ['a 1-character name', { slug: 'short-name', name: 'N' }, 'name'],
    ['a number as name', { slug: 'num-name', name: 42 }, 'name'],
    ['an unknown field', { slug: 'extra', name: 'Name', productCount: 3 }, 'productCount'],
    ['an id', { slug: 'with-id', name: 'Name', id: 'x' }, 'id'],
  ])('POST /api/v1/tools/categories.upsert with %s is 400', async (_label, body, field) => {
    const problem = await expectRefused('categories.upsert', body, 400, 'invalid_request');
    expect(problem.detail).toContain(field);
  });

  it('POST /api/v1/tools/categories.upsert with a NUL byte in the name is 400 invalid_text', async () => {
    const problem = await expectRefused('categories.upsert', { slug: 'nul-name', name: 'Na\u0000me' }, 400, 'invalid_text');
    expect(problem.detail).toContain('name');
  });

  it('a dry run reports the change and creates nothing', async () => {
    const before = await snapshot();
    const res = await call('categories.upsert', { slug: 'dry', name: 'Dry run', dryRun: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, dryRun: true, result: { slug: 'dry', name: 'Dry run' } });
    expect(res.json().changes[0]).toMatchObject({ entityType: 'category', before: null, after: { slug: 'dry' } });
    expect(await snapshot()).toEqual(before);
  });
});

describe('categories.delete', () => {
  it('POST /api/v1/tools/categories.delete needs confirm: true', async () => {
    await call('categories.upsert', { slug: 'confirm-me', name: 'Confirm me' });
    for (const confirm of [undefined, 'true', 1, false, null]) {
      await expectRefused('categories.delete', confirm === undefined ? { slug: 'confirm-me' } : { slug: 'confirm-me', confirm }, 422, 'confirmation_required');
    }
    expect(await category('confirm-me')).not.toBeNull();
  });

  it('is 422 category_not_empty while live products remain, and changes nothing', async () => {
    await call('categories.upsert', { slug: 'full', name: 'Full' });
    const p = await product('full');
    const problem = await expectRefused('categories.delete', { slug: 'full', confirm: true }, 422, 'category_not_empty');
    expect(problem.detail).toContain('1 product');
    const cat = await category('full');
    expect((await t.db.product.findUnique({ where: { slug: p } }))!.categoryId).toBe(cat!.id);
  });

  it('deletes an empty category: row gone, one audit entry with after null', async () => {
    await call('categories.upsert', { slug: 'empty', name: 'Empty', description: 'Nothing here' });
    const id = (await category('empty'))!.id;
    const { res, entry } = await expectOneAuditEntry('categories.delete', { slug: 'empty', confirm: true });
    expect(res.json()).toEqual({ ok: true, result: { ok: true, slug: 'empty' } });
    expect(await category('empty')).toBeNull();
    expect(entry).toMatchObject({ entityId: id, after: null, before: { slug: 'empty', name: 'Empty', description: 'Nothing here' } });
    expect((await list()).map((r) => r.slug)).not.toContain('empty');
  });

  it('deletes a category whose products are all soft-deleted; the products keep their data', async () => {
    await call('categories.upsert', { slug: 'emptied', name: 'Emptied' });
    const p = await product('emptied');
    expect((await call('products.delete', { slug: p, confirm: true })).statusCode).toBe(200);
    await expectOneAuditEntry('categories.delete', { slug: 'emptied', confirm: true });
    expect(await category('emptied')).toBeNull();
    const row = await t.db.product.findUniqueOrThrow({ where: { slug: p } });
    expect(row.deletedAt).toBeInstanceOf(Date);
    expect(row.categoryId).toBeNull();
  });

  it('a dry run reports the deletion and deletes nothing', async () => {
    await call('categories.upsert', { slug: 'dry-delete', name: 'Dry delete' });
    const before = await snapshot();
    const res = await call('categories.delete', { slug: 'dry-delete', dryRun: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, dryRun: true, changes: [{ entityType: 'category', after: null }] });
    expect(await snapshot()).toEqual(before);
  });

  it('an unknown slug is 404; a missing slug is 400', async () => {
    await expectRefused('categories.delete', { slug: 'never-existed', confirm: true }, 404, 'not_found');
    await expectRefused('categories.delete', { confirm: true }, 400, 'invalid_request');
  });
});
