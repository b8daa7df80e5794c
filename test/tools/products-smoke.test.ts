import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp({ env: { LOG_LEVEL: 'error' } }); });
afterAll(async () => { await t?.close(); });

describe('smoke', () => {
  it('creates, searches, deletes and reverts a product', async () => {
    const key = await t.key();
    const created = await t.call('products.create', { name: 'Aviator', slug: 'aviator-1', description: 'A classic aviator frame', priceDkk: 9007199254740991, stock: 3 }, key);
    expect(created.statusCode).toBe(200);
    const search = await t.call('products.search', { q: 'aviator' });
    expect(search.statusCode).toBe(200);
    expect(search.json().result[0]).toMatchObject({ slug: 'aviator-1', priceDkk: 9007199254740991, categorySlug: 'uncategorized' });
    expect(search.headers['ratelimit-policy']).toMatch(/"anon";q=/);
    const del = await t.call('products.delete', { slug: 'aviator-1', confirm: true }, key);
    expect(del.json()).toEqual({ ok: true, result: { ok: true, slug: 'aviator-1' } });
    const list = await t.call('audit.list', { tool: 'products.delete' }, key);
    const entry = list.json().result.entries[0];
    const revert = await t.call('audit.revert', { auditId: entry.id, confirm: true }, key);
    expect(revert.statusCode, revert.body).toBe(200);
    const get = await t.call('products.get', { slug: 'aviator-1' });
    expect(get.statusCode, get.body).toBe(200);
  });
});
