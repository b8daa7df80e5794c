// docs/robustness.md row 32 in depth: the database goes away under a running service and comes back. A private
// embedded PostgreSQL (own temp data directory, so stopping it disturbs no other test) is migrated, the app is
// built on it, then PostgreSQL is stopped mid-run: every tool call answers 503 service_unavailable with Retry-After
// as problem+json without stack, SQL or Prisma text, the process keeps serving, and once PostgreSQL is started
// again on the same port the same app (same Prisma client, same pool) succeeds again by itself.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createKey } from '../../src/auth/key-admin.ts';
import { generateKey, generateKeyId } from '../../src/auth/key-format.ts';
import { loadConfig } from '../../src/config.ts';
import { createDb, type Db } from '../../src/db/client.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { expectProblem } from '../helpers/problem.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dataDir: string;
let pg: EmbeddedPostgres;
let db: Db;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-api-db-down-'));
  pg = await startEmbeddedPostgres({ dataDir, settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } });
  await migrate(pg.url, { log: () => {} });
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: pg.url, RATE_LIMIT_ANON_MAX: '100000', RATE_LIMIT_PREAUTH_MAX: '100000', RATE_LIMIT_AUTH_MAX: '100000' });
  db = createDb({ connectionString: pg.url, poolMax: 5 });
  app = await buildApp(config, { db });
  await app.ready();
  key = (await createKey(db, { name: 'db-down', scopes: ['catalog:read', 'products:write'] })).key;
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.$disconnect().catch(() => {});
  await pg?.stop();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
}, 60_000);

const call = (tool: string, body: unknown, bearer?: string) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/tools/${tool}`,
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    payload: JSON.stringify(body),
  });
const search = () => call('products.search', {});
let n = 0;
const create = () => {
  n++;
  return call('products.create', { name: `Down ${n}`, slug: `down-${n}`, description: 'Made while the database came and went.', priceDkk: 100, stock: 1 }, key);
};

function expectUnavailable(res: LightMyRequestResponse) {
  const body = expectProblem(res, 503, 'service_unavailable');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.body).not.toMatch(/Can't reach|DatabaseNotReachable|127\.0\.0\.1|57P0|shutting down/i);
  return body;
}

/** Polls until `probe` is true; returns the ms it took, or Infinity after `limitMs`. */
async function msUntil(probe: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (await probe()) return Date.now() - started;
    await sleep(100);
  }
  return Infinity;
}

describe('docs/robustness.md row 32: PostgreSQL stopped and restarted under the running service', () => {
  it('serves reads and writes while PostgreSQL runs', async () => {
    expect((await search()).statusCode).toBe(200);
    const res = await create();
    expect(res.statusCode, res.body).toBe(200);
  });

  it('stopped mid-run: in-flight and later calls are 200 or 503 service_unavailable (+Retry-After, no internals), never 500; the process keeps serving', async () => {
    // A burst of reads and writes, with PostgreSQL stopped while it runs.
    const burst = Promise.all(Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? create() : search())));
    await sleep(20);
    await pg.stop();
    for (const res of await burst) {
      if (res.statusCode !== 200) expectUnavailable(res);
    }
    // After the stop: every kind of call is 503, including the key lookup of an uncached key (guard) and a
    // cached one (tool transaction).
    await sleep(1_000); // past the key cache, so the guard itself must reach the database
    expectUnavailable(await search());
    expectUnavailable(await create());
    expectUnavailable(await call('products.get', { slug: 'down-1' }));
    expectUnavailable(await call('products.create', {}, generateKey(generateKeyId()).key));
    // Still up: routes that need no database answer, and the listener is intact.
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  }, 60_000);

  it('restarted on the same port: calls succeed again by themselves within 15 s', async () => {
    const before = new URL(pg.url).port;
    pg = await startEmbeddedPostgres({ dataDir, settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } });
    expect(new URL(pg.url).port).toBe(before);
    const readsBack = await msUntil(async () => (await search()).statusCode === 200, 15_000);
    expect(readsBack).toBeLessThan(15_000);
    const writesBack = await msUntil(async () => (await create()).statusCode === 200, 15_000);
    expect(writesBack).toBeLessThan(15_000);
    expect(await db.product.count({ where: { slug: { startsWith: 'down-' } } })).toBeGreaterThanOrEqual(2);
  }, 90_000);
});

describe('docs/robustness.md row 32: a pool pointed at 127.0.0.1:1', () => {
  it('answers reads, writes and key lookups with 503 service_unavailable + Retry-After', async () => {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere' });
    const nowhere = createDb({ connectionString: config.databaseUrl!, poolMax: 2 });
    const down = await buildApp(config, { db: nowhere });
    try {
      const inject = (tool: string, body: unknown, bearer?: string) => down.inject({
        method: 'POST', url: `/api/v1/tools/${tool}`, payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      });
      expectUnavailable(await inject('products.search', {}));
      expectUnavailable(await inject('categories.list', {}));
      expectUnavailable(await inject('products.create', {}, generateKey(generateKeyId()).key));
    } finally {
      await down.close();
      await nowhere.$disconnect().catch(() => {});
    }
  });
});
