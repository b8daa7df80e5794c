// The operator CLI (README) run as a real child process against a test database: exact --json output of
// keys create|list|rotate|revoke, non-zero exits on bad input, keys that work (or stop working) over HTTP, and an
// idempotent `seed --demo`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import type { FastifyInstance } from 'fastify';
import { cli, type Run } from './processes.ts';

// Each CLI run starts tsx and Prisma (~2.5 s on an idle 2-core machine, several times that when test files run in
// parallel), so these tests get generous timeouts and the file keeps the number of runs small.
const CLI_TIMEOUT = 90_000;

let database: TestDatabase;
let app: FastifyInstance;
beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: database.url,
    RATE_LIMIT_ANON_MAX: '100000', RATE_LIMIT_PREAUTH_MAX: '100000', RATE_LIMIT_AUTH_MAX: '100000',
  });
  app = await buildApp(config, { db: database.db });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.drop();
});

/** The CLI as `npm run --silent cli -- …` runs it, on the test database. */
const run = (...args: string[]) => cli({ DATABASE_URL: database.url }, ...args);

/** stdout must be exactly one JSON document (one line). */
function oneJson(result: Run): unknown {
  expect(result.code, result.stderr).toBe(0);
  const lines = result.stdout.split('\n').filter((l) => l.length > 0);
  expect(lines, result.stdout).toHaveLength(1);
  return JSON.parse(lines[0]);
}

const callWith = (key: string, name = 'products.create') =>
  app.inject({ method: 'POST', url: `/api/v1/tools/${name}`, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, payload: '{}' });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cli keys', () => {
  let created: { id: string; name: string; scopes: string[]; key: string };

  it('keys create --json prints exactly one {id,name,scopes,key} object, and the key works', async () => {
    created = oneJson(await run('keys', 'create', '--name', 'x', '--scopes', 'catalog:read,products:write', '--json')) as typeof created;
    expect(Object.keys(created).sort()).toEqual(['id', 'key', 'name', 'scopes']);
    expect(created).toMatchObject({ name: 'x', scopes: ['catalog:read', 'products:write'] });
    expect(created.key).toMatch(new RegExp(`^aak_${created.id}_[0-9A-Za-z]{38}$`));
    const row = await database.db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.scopes).toEqual(['catalog:read', 'products:write']);
    expect(row.secretHash).not.toContain(created.key);
    // products:write: past authentication and authorization, so the empty body is a validation error.
    expect((await callWith(created.key)).statusCode).toBe(400);
    // No categories:write scope: 403.
    expect((await callWith(created.key, 'categories.upsert')).statusCode).toBe(403);
  }, CLI_TIMEOUT);

  it('keys create --scopes all grants the 21 scopes', async () => {
    const all = oneJson(await run('keys', 'create', '--name', 'admin', '--scopes', 'all', '--json')) as { scopes: string[] };
    expect(all.scopes).toEqual([...SCOPES]);
  }, CLI_TIMEOUT);

  it('keys create with an unknown scope exits non-zero and creates nothing', async () => {
    const before = await database.db.apiKey.count();
    const unknown = await run('keys', 'create', '--name', 'bad', '--scopes', 'catalog:read,products:admin', '--json');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('products:admin');
    expect(await database.db.apiKey.count()).toBe(before);
  }, CLI_TIMEOUT);

  it('keys list --json lists the keys without secrets', async () => {
    const keys = oneJson(await run('keys', 'list', '--json')) as Record<string, unknown>[];
    expect(keys.length).toBeGreaterThanOrEqual(2);
    const mine = keys.find((k) => k.id === created.id)!;
    expect(mine).toMatchObject({ id: created.id, name: 'x', scopes: ['catalog:read', 'products:write'], revokedAt: null });
    expect(JSON.stringify(keys)).not.toContain(created.key);
    expect(JSON.stringify(keys)).not.toMatch(/secretHash/);
  }, CLI_TIMEOUT);

  it('keys rotate <id> --json prints the same shape with a new secret; the old one stops working', async () => {
    expect((await callWith(created.key)).statusCode).toBe(400);
    const rotated = oneJson(await run('keys', 'rotate', created.id, '--json')) as typeof created;
    expect(Object.keys(rotated).sort()).toEqual(['grantsEnded', 'id', 'key', 'name', 'scopes']);
    expect(rotated).toMatchObject({ id: created.id, name: 'x', scopes: ['catalog:read', 'products:write'], grantsEnded: 0 });
    expect(rotated.key).not.toBe(created.key);
    await sleep(1000); // the app's key cache lives under 1 s
    expect((await callWith(created.key)).statusCode).toBe(401);
    expect((await callWith(rotated.key)).statusCode).toBe(400);
    created = rotated;
  }, CLI_TIMEOUT);

  it('keys revoke <id> revokes; the key stops working; revoking again exits non-zero', async () => {
    const revoked = await run('keys', 'revoke', created.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).revokedAt).toBeInstanceOf(Date);
    await sleep(1000);
    expect((await callWith(created.key)).statusCode).toBe(401);
    const again = await run('keys', 'revoke', created.id);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(created.id);
  }, CLI_TIMEOUT);
});

describe('cli seed --demo', () => {
  const counts = async () => ({
    categories: await database.db.category.count(),
    products: await database.db.product.count(),
    liveProducts: await database.db.product.count({ where: { deletedAt: null } }),
    pages: await database.db.page.count(),
    services: await database.db.serviceOffering.count(),
    discounts: await database.db.discountCode.count(),
    orders: await database.db.order.count(),
    orderItems: await database.db.orderItem.count(),
  });

  it('is idempotent: the second run leaves the same rows, with at least 30 products', async () => {
    const first = await run('seed', '--demo');
    expect(first.code, first.stderr).toBe(0);
    const after1 = await counts();
    expect(after1.products).toBeGreaterThanOrEqual(30);
    expect(after1.liveProducts).toBe(after1.products);
    expect(after1.categories).toBeGreaterThanOrEqual(3);
    const products1 = await database.db.product.findMany({ orderBy: { slug: 'asc' }, select: { id: true, slug: true, priceDkk: true, categoryId: true } });

    const second = await run('seed', '--demo');
    expect(second.code, second.stderr).toBe(0);
    expect(await counts()).toEqual(after1);
    const products2 = await database.db.product.findMany({ orderBy: { slug: 'asc' }, select: { id: true, slug: true, priceDkk: true, categoryId: true } });
    expect(products2).toEqual(products1);

    // The seeded catalog is served: varied, categorised, searchable.
    const res = await app.inject({ method: 'POST', url: '/api/v1/tools/products.search', headers: { 'content-type': 'application/json' }, payload: { limit: 100 } });
    const items = res.json().result as { categorySlug: string; brand: string | null; featured: boolean; stock: number }[];
    expect(items.length).toBe(after1.products);
    expect(new Set(items.map((i) => i.categorySlug)).size).toBeGreaterThanOrEqual(3);
    expect(items.some((i) => i.featured)).toBe(true);
    expect(items.some((i) => i.stock === 0)).toBe(true);
  }, 2 * CLI_TIMEOUT);
});
