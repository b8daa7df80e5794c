// audit.list and audit.revert over HTTP on real PostgreSQL (docs/agent-safety.md): filters and cursor
// paging, restoring what an entry recorded, conflicts with later changes, and the revert's own audit entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey } from '../../src/auth/key-format.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { catalogWriteAssertions } from '../helpers/catalog-writes.ts';
import { createProduct } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';

type Entry = {
  id: string; at: string; apiKeyId: string | null; grantId: string | null; tool: string; entityType: string; entityId: string;
  before: Record<string, unknown> | null; after: Record<string, unknown> | null; meta: unknown; revertOf: string | null; reversible: boolean;
};

let t: TestApp;
let key: string;
let keyId: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['products:write', 'categories:write', 'audit:read', 'audit:revert']);
  keyId = parseKey(key)!.id;
});
afterAll(async () => {
  await t?.close();
});

const call = (name: string, body: unknown) => t.call(name, body, key);
async function ok(name: string, body: unknown) {
  const res = await call(name, body);
  expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
  return res.json();
}
async function auditList(body: Record<string, unknown> = {}) {
  return (await ok('audit.list', body)).result as { entries: Entry[]; nextCursor: string | null };
}
/** The newest entry for an entity written by `tool`. */
async function entryOf(tool: string, entityId: string): Promise<Entry> {
  const { entries } = await auditList({ tool, entityId, limit: 1 });
  expect(entries).toHaveLength(1);
  return entries[0];
}
const revert = (auditId: string, extra: Record<string, unknown> = {}) => call('audit.revert', { auditId, confirm: true, ...extra });
const writes = catalogWriteAssertions(() => t.db, call, 'product', () => keyId);
const { snapshot } = writes;
/** audit.revert must fail with this status and code and leave products, categories and the audit log as they were. */
const expectRefused = (body: unknown, status: number, code: string) => writes.expectRefused('audit.revert', body, status, code);

let seq = 0;
const createAuditedProduct = (over: Record<string, unknown> = {}) =>
  createProduct(t, key, {
    name: 'Audited Frame', slug: `audit-p-${++seq}`, description: 'A frame whose changes are audited.', priceDkk: 50_000, stock: 4,
    images: ['https://img.example.com/a.jpg'], ...over,
  });
const product = (slug: string) => t.db.product.findUniqueOrThrow({ where: { slug } });

describe('audit.list', () => {
  let ids: string[];
  beforeAll(async () => {
    // 3 creates, 2 updates and a delete on two products, plus a category upsert: 7 entries, newest first below.
    const a = await createAuditedProduct();
    const b = await createAuditedProduct();
    await ok('products.update', { slug: a.slug, patch: { name: 'Renamed A' } });
    await ok('categories.upsert', { slug: 'audited-cat', name: 'Audited category' });
    await ok('products.update', { slug: b.slug, patch: { stock: 9 } });
    await ok('products.delete', { slug: a.slug, confirm: true });
    await createAuditedProduct();
    ids = (await t.db.auditEntry.findMany({ orderBy: [{ at: 'desc' }, { id: 'desc' }], select: { id: true } })).map((e) => e.id);
    expect(ids).toHaveLength(7);
  });

  it('POST /api/v1/tools/audit.list returns entries newest first with key, tool, entity and before/after', async () => {
    const { entries, nextCursor } = await auditList();
    expect(entries.map((e) => e.id)).toEqual(ids);
    expect(nextCursor).toBeNull();
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(['after', 'apiKeyId', 'at', 'before', 'entityId', 'entityType', 'grantId', 'id', 'meta', 'reversible', 'revertOf', 'tool']);
      expect(e.apiKeyId).toBe(keyId);
      expect(e.grantId).toBeNull();
      expect(e.at).toMatch(/Z$/);
    }
    const del = entries.find((e) => e.tool === 'products.delete')!;
    expect(del).toMatchObject({ entityType: 'product', reversible: true, revertOf: null });
    expect(del.before!.deletedAt).toBeNull();
    expect(del.after!.deletedAt).toEqual(expect.any(String));
    expect(entries.find((e) => e.tool === 'products.create')!.reversible).toBe(false);
    expect(entries.find((e) => e.tool === 'categories.upsert')!.reversible).toBe(true);
  });

  it('filters by tool, entityType and entityId', async () => {
    expect((await auditList({ tool: 'products.update' })).entries.map((e) => e.tool)).toEqual(['products.update', 'products.update']);
    expect((await auditList({ entityType: 'category' })).entries.map((e) => e.tool)).toEqual(['categories.upsert']);
    const first = (await auditList({ tool: 'products.delete' })).entries[0];
    const forEntity = (await auditList({ entityId: first.entityId })).entries;
    expect(forEntity.map((e) => e.tool)).toEqual(['products.delete', 'products.update', 'products.create']);
    expect((await auditList({ tool: 'products.update', entityId: first.entityId })).entries).toHaveLength(1);
    expect((await auditList({ tool: 'no.such_tool' })).entries).toEqual([]);
  });

  it('pages with nextCursor through every entry exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const page = await auditList({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toEqual(ids);
    // A cursor keeps working when newer entries arrive.
    const first = await auditList({ limit: 3 });
    await ok('categories.upsert', { slug: 'later-cat', name: 'Later' });
    const second = await auditList({ limit: 3, cursor: first.nextCursor });
    expect(second.entries.map((e) => e.id)).toEqual(ids.slice(3, 6));
  });

  it.each([
    ['a garbage cursor', { cursor: 'garbage' }],
    ['a base64 cursor of the wrong form', { cursor: Buffer.from('not.a/cursor!').toString('base64url') }],
  ])('POST /api/v1/tools/audit.list with %s is 400 invalid_cursor (valid under the schema, not issued here)', async (_label, body) => {
    expect(expectProblem(await call('audit.list', body), 400, 'invalid_cursor').detail).toContain('cursor');
  });

  it.each([
    ['an over-long cursor', { cursor: 'x'.repeat(300) }],
    ['a numeric cursor', { cursor: 5 }],
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
    ['an unknown field', { offset: -1 }],
  ])('POST /api/v1/tools/audit.list with %s is 400', async (_label, body) => {
    const problem = expectProblem(await call('audit.list', body), 400, 'invalid_request');
    expect(problem.detail).toContain(Object.keys(body)[0]);
  });
});

describe('audit.revert', () => {
  it('restores a soft-deleted product and audits the revert with revertOf', async () => {
    const { id, slug } = await createAuditedProduct({ name: 'Restorable Frame' });
    await ok('products.delete', { slug, confirm: true });
    const entry = await entryOf('products.delete', id);
    expectProblem(await t.call('products.get', { slug }), 404, 'not_found');
    const deleted = await product(slug);

    const res = await revert(entry.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toEqual({ auditId: entry.id, entityType: 'product', entityId: id, restored: 'previous_state' });
    const restored = await product(slug);
    expect(restored.deletedAt).toBeNull();
    expect({ ...restored, updatedAt: null }).toEqual({ ...deleted, deletedAt: null, updatedAt: null });
    expect((await t.call('products.get', { slug })).statusCode).toBe(200);
    const found = (await t.call('products.search', { q: 'Restorable Frame' })).json().result;
    expect(found.map((p: { slug: string }) => p.slug)).toEqual([slug]);

    const own = await entryOf('audit.revert', id);
    expect(own).toMatchObject({ revertOf: entry.id, entityType: 'product', apiKeyId: keyId, reversible: false });
    expect(own.before!.deletedAt).toEqual(expect.any(String));
    expect(own.after!.deletedAt).toBeNull();
  });

  it('reverts an update: every changed field comes back', async () => {
    const { id, slug } = await createAuditedProduct({ featured: true, brand: 'Nordlys' });
    const original = await product(slug);
    await ok('products.update', { slug, patch: { name: 'Changed Name', priceDkk: 9007199254740991, brand: null, featured: false, images: [] } });
    const entry = await entryOf('products.update', id);
    const res = await revert(entry.id);
    expect(res.statusCode, res.body).toBe(200);
    const back = await product(slug);
    expect({ ...back, updatedAt: null }).toEqual({ ...original, updatedAt: null });
    expect(back.priceDkk).toBe(50_000n);
  });

  it('reverting a category upsert that created the category removes it', async () => {
    const { result } = await ok('categories.upsert', { slug: 'created-then-reverted', name: 'Temporary' });
    const entry = await entryOf('categories.upsert', result.id);
    expect(entry.before).toBeNull();
    const res = await revert(entry.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toEqual({ auditId: entry.id, entityType: 'category', entityId: result.id, restored: 'removed' });
    expect(await t.db.category.findUnique({ where: { slug: 'created-then-reverted' } })).toBeNull();
    const own = await entryOf('audit.revert', result.id);
    expect(own).toMatchObject({ revertOf: entry.id, after: null });
  });

  it('reverting the creation of a category that has products since is 422 category_not_empty', async () => {
    const { result } = await ok('categories.upsert', { slug: 'now-in-use', name: 'In use' });
    const entry = await entryOf('categories.upsert', result.id);
    await createAuditedProduct({ categorySlug: 'now-in-use' });
    await expectRefused({ auditId: entry.id, confirm: true }, 422, 'category_not_empty');
  });

  it('reverting a category update restores its name and description', async () => {
    await ok('categories.upsert', { slug: 'renamed-cat', name: 'Original', description: 'First' });
    const { result } = await ok('categories.upsert', { slug: 'renamed-cat', name: 'Renamed', description: 'Second' });
    const entry = await entryOf('categories.upsert', result.id);
    expect((await revert(entry.id)).statusCode).toBe(200);
    expect(await t.db.category.findUnique({ where: { slug: 'renamed-cat' } })).toMatchObject({ id: result.id, name: 'Original', description: 'First' });
  });

  it('reverting a category deletion brings the category back with its id', async () => {
    const { result } = await ok('categories.upsert', { slug: 'deleted-cat', name: 'Deleted', description: 'Gone for a while' });
    await ok('categories.delete', { slug: 'deleted-cat', confirm: true });
    const entry = await entryOf('categories.delete', result.id);
    expect((await revert(entry.id)).statusCode).toBe(200);
    expect(await t.db.category.findUnique({ where: { slug: 'deleted-cat' } })).toMatchObject({ id: result.id, name: 'Deleted', description: 'Gone for a while' });
  });

  it('a second revert of the same entry is 422 revert_conflict and changes nothing', async () => {
    const { id, slug } = await createAuditedProduct();
    await ok('products.delete', { slug, confirm: true });
    const entry = await entryOf('products.delete', id);
    expect((await revert(entry.id)).statusCode).toBe(200);
    await expectRefused({ auditId: entry.id, confirm: true }, 422, 'revert_conflict');
    expect((await product(slug)).deletedAt).toBeNull();
  });

  it('two concurrent reverts of one entry: exactly one succeeds, the other is 422 revert_conflict', async () => {
    const { id, slug } = await createAuditedProduct();
    await ok('products.delete', { slug, confirm: true });
    const entry = await entryOf('products.delete', id);
    const before = await t.db.auditEntry.count();
    const results = await Promise.all([revert(entry.id), revert(entry.id), revert(entry.id)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 422, 422]);
    for (const r of results.filter((x) => x.statusCode === 422)) expectProblem(r, 422, 'revert_conflict');
    expect(await t.db.auditEntry.count()).toBe(before + 1);
    expect((await product(slug)).deletedAt).toBeNull();
  });

  it('a revert after a later change is 422 revert_conflict unless force: true', async () => {
    const { id, slug } = await createAuditedProduct({ name: 'Version One' });
    await ok('products.update', { slug, patch: { name: 'Version Two' } });
    const entry = await entryOf('products.update', id);
    await ok('products.update', { slug, patch: { stock: 99 } });
    const problem = await expectRefused({ auditId: entry.id, confirm: true }, 422, 'revert_conflict');
    expect(problem.detail).toContain('force');
    expect(await product(slug)).toMatchObject({ name: 'Version Two', stock: 99n });

    const res = await revert(entry.id, { force: true });
    expect(res.statusCode, res.body).toBe(200);
    // The entry's before state wins, including fields changed later.
    expect(await product(slug)).toMatchObject({ name: 'Version One', stock: 4n });
  });

  it('entries of non-reversible tools (attach_image, create) are 422 not_revertible', async () => {
    const { id, slug } = await createAuditedProduct();
    await ok('products.attach_image', { slug, imageUrl: 'https://cdn.example.com/more.jpg' });
    const attach = await entryOf('products.attach_image', id);
    expect(attach.reversible).toBe(false);
    await expectRefused({ auditId: attach.id, confirm: true }, 422, 'not_revertible');
    expect((await product(slug)).images).toEqual(['https://img.example.com/a.jpg', 'https://cdn.example.com/more.jpg']);
    const create = await entryOf('products.create', id);
    await expectRefused({ auditId: create.id, confirm: true }, 422, 'not_revertible');
  });

  it('a revert entry cannot itself be reverted', async () => {
    const { id, slug } = await createAuditedProduct();
    await ok('products.delete', { slug, confirm: true });
    expect((await revert((await entryOf('products.delete', id)).id)).statusCode).toBe(200);
    const own = await entryOf('audit.revert', id);
    await expectRefused({ auditId: own.id, confirm: true }, 422, 'not_revertible');
  });

  it('POST /api/v1/tools/audit.revert needs confirm: true; dryRun previews without changing anything', async () => {
    const { id, slug } = await createAuditedProduct();
    await ok('products.delete', { slug, confirm: true });
    const entry = await entryOf('products.delete', id);
    for (const confirm of [undefined, 'true', 1, false]) {
      await expectRefused(confirm === undefined ? { auditId: entry.id } : { auditId: entry.id, confirm }, 422, 'confirmation_required');
    }
    const before = await snapshot();
    const dry = await call('audit.revert', { auditId: entry.id, dryRun: true });
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json()).toMatchObject({ ok: true, dryRun: true, changes: [{ entityType: 'product', entityId: id, revertOf: entry.id }] });
    expect(await snapshot()).toEqual(before);
    expect((await product(slug)).deletedAt).toBeInstanceOf(Date);
  });

  it('an unknown audit id is 404; bad fields are 400', async () => {
    await expectRefused({ auditId: 'no-such-entry', confirm: true }, 404, 'not_found');
    await expectRefused({ confirm: true }, 400, 'invalid_request');
    await expectRefused({ auditId: 'x', confirm: true, force: 'yes' }, 400, 'invalid_request');
    await expectRefused({ auditId: '', confirm: true }, 400, 'invalid_request');
  });
});
