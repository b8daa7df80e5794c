// A JSON-RPC batch (2025-03-26) counts as the requests it holds (docs/contract.md, rate limits): each message against
// the pre-auth and key limits, before any of it runs; a batch that does not fit is refused whole; anonymous callers
// may not batch. Run on both of @fastify/rate-limit's stores: in memory, and Redis (REDIS_URL) when redis-server is
// installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';
import { freePort } from '../helpers/processes.ts';
import { buildApp } from '../../src/app.ts';

const haveRedis = spawnSync('redis-server', ['--version']).status === 0;
const LIMITS = { RATE_LIMIT_ANON_MAX: '3', RATE_LIMIT_PREAUTH_MAX: '100', RATE_LIMIT_AUTH_MAX: '10' };

let redisServer: ChildProcess | undefined;
let redisPort = 0;
const redisClients: Redis[] = [];

async function startRedis(): Promise<void> {
  redisPort = await freePort();
  redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(redisPort, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start');
}

function redisClient(): Redis {
  const client = new Redis(redisPort, '127.0.0.1', { maxRetriesPerRequest: 1 });
  redisClients.push(client);
  return client;
}

beforeAll(async () => {
  if (haveRedis) await startRedis();
});
afterAll(async () => {
  for (const client of redisClients) client.disconnect();
  redisServer?.kill();
});

const STORES = haveRedis ? (['memory', 'redis'] as const) : (['memory'] as const);

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const postTo = (app: FastifyInstance, body: unknown, key: string | undefined, ip: string) =>
  app.inject({
    method: 'POST',
    url: '/api/mcp',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    payload: JSON.stringify(body),
  });
const keyRemaining = (res: { headers: Record<string, unknown> }) => Number(/"key";r=(\d+)/.exec(String(res.headers.ratelimit))?.[1]);
const upserts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => call(i + 1, 'categories.upsert', { slug: `${prefix}-${i}`, name: 'Batched' }));

describe.each(STORES)('batches on the %s counters', (store) => {
  let t: TestApp;
  let queries = 0;
  beforeAll(async () => {
    t = await createTestApp({ env: LIMITS, onQuery: () => void queries++, ...(store === 'redis' ? { redis: redisClient() } : {}) });
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown, key: string | undefined, ip: string) => postTo(t.app, body, key, ip);
  const categories = (prefix: string) => t.db.category.count({ where: { slug: { startsWith: `${prefix}-` } } });

  it('refuses an anonymous batch with 401 before anything runs, counting only the request', async () => {
    const ip = '10.9.0.1';
    queries = 0;
    const res = await post([1, 2, 3].map((id) => call(id, 'products.search')), undefined, ip);
    const problem = expectProblem(res, 401, 'unauthorized');
    expect(problem.detail).toMatch(/batch needs credentials/);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="agent-api"/);
    expect(queries).toBe(0);
    expect(res.headers.ratelimit).toMatch(/^"anon";r=2;t=\d+$/);
    // A batch of one is a batch too; single messages still work.
    expectProblem(await post([call(1, 'products.search')], undefined, ip), 401, 'unauthorized');
    const single = await post(call(1, 'products.search'), undefined, ip);
    expect(single.statusCode, single.body).toBe(200);
    expect(single.headers.ratelimit).toMatch(/^"anon";r=0;t=\d+$/);
  });

  it('counts each message of a keyed batch against the key and the pre-auth limit', async () => {
    const key = await t.key(['catalog:read']);
    const res = await post([1, 2, 3, 4].map((id) => call(id, 'products.search')), key, '10.9.0.2');
    expect(res.statusCode, res.body).toBe(200);
    expect((JSON.parse(res.body) as unknown[]).length).toBe(4);
    expect(keyRemaining(res)).toBe(6);
    expect(res.headers.ratelimit).toMatch(/"preauth";r=96;/);
    expect(res.headers['ratelimit-remaining']).toBe('6');
    const next = await post(call(1, 'products.search'), key, '10.9.0.3');
    expect(keyRemaining(next)).toBe(5);
  });

  it('refuses whole a batch of writes that exceeds what is left of the key’s budget: no rows, nothing taken', async () => {
    const key = await t.key(['categories:write']);
    expect((await post(call(1, 'categories.upsert', { slug: 'rl-batch-first', name: 'First' }), key, '10.9.0.4')).statusCode).toBe(200);
    // 9 left: the request counts one on arrival, its 9 further messages do not fit in the 8 then left.
    const refused = await post(upserts('rl-batch-over', 10), key, '10.9.0.4');
    const problem = expectProblem(refused, 429, 'rate_limited');
    expect(problem.detail).toMatch(/by this batch: its messages count one request each, 8 are left; nothing in it ran/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers.ratelimit).toMatch(/"key";r=8;t=\d+/);
    expect(await categories('rl-batch-over')).toBe(0);
    expect(await t.db.auditEntry.count({ where: { tool: 'categories.upsert', entityId: { in: (await t.db.category.findMany({ where: { slug: { startsWith: 'rl-batch-over' } } })).map((c) => c.id) } } })).toBe(0);
    // What is left is still there: a batch of exactly 8 runs all of its writes.
    const fits = await post(upserts('rl-batch-fits', 8), key, '10.9.0.4');
    expect(fits.statusCode, fits.body).toBe(200);
    expect(keyRemaining(fits)).toBe(0);
    expect(await categories('rl-batch-fits')).toBe(8);
    expectProblem(await post(call(1, 'products.search'), key, '10.9.0.4'), 429, 'rate_limited');
  });

  it('a batch larger than the whole limit is refused, and the key keeps its budget', async () => {
    const key = await t.key(['categories:write']);
    expectProblem(await post(upserts('rl-batch-huge', 11), key, '10.9.0.5'), 429, 'rate_limited');
    expect(await categories('rl-batch-huge')).toBe(0);
    const after = await post(call(1, 'products.search'), key, '10.9.0.5');
    expect(after.statusCode).toBe(200);
    expect(keyRemaining(after)).toBe(8);
  });
});

it.each(STORES)('runs no more calls than the key’s limit allows under 20 concurrent batches (%s counters)', async (store) => {
  const app = await createTestApp({ env: { ...LIMITS, RATE_LIMIT_AUTH_MAX: '30' }, ...(store === 'redis' ? { redis: redisClient() } : {}) });
  try {
    const key = await app.key(['categories:write']);
    const results = await Promise.all(Array.from({ length: 20 }, (_, b) => postTo(app.app, upserts(`rl-race-${b}`, 3), key, '10.9.1.1')));
    const ran = results.filter((r) => r.statusCode === 200);
    for (const refused of results.filter((r) => r.statusCode !== 200)) expectProblem(refused, 429, 'rate_limited');
    // Counted once per batch (the old behaviour), all 20 batches and their 60 writes would have run.
    const rows = await app.db.category.count({ where: { slug: { startsWith: 'rl-race-' } } });
    expect(rows).toBe(ran.length * 3);
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThanOrEqual(30);
  } finally {
    await app.close();
  }
});

it.skipIf(!haveRedis)('shares one budget between two app instances on one Redis', async () => {
  const a = await createTestApp({ env: LIMITS, redis: redisClient() });
  const b = await buildApp(a.config, { db: a.db, redis: redisClient() });
  try {
    const key = await a.key(['categories:write']);
    const inject = (app: FastifyInstance, body: unknown) => postTo(app, body, key, '10.9.2.1');
    const first = await inject(a.app, upserts('rl-shared-a', 6));
    expect(first.statusCode, first.body).toBe(200);
    expect(keyRemaining(first)).toBe(4);
    // On b: the request counts one (7), its 4 further messages do not fit in the 3 then left.
    const refused = await inject(b, upserts('rl-shared-b', 5));
    expect(expectProblem(refused, 429, 'rate_limited').detail).toMatch(/3 are left; nothing in it ran/);
    const fits = await inject(b, upserts('rl-shared-c', 3));
    expect(fits.statusCode, fits.body).toBe(200);
    expect(keyRemaining(fits)).toBe(0);
    expectProblem(await inject(a.app, call(1, 'products.search')), 429, 'rate_limited');
    expect(await a.db.category.count({ where: { slug: { startsWith: 'rl-shared-' } } })).toBe(9);
    expect(await a.db.category.count({ where: { slug: { startsWith: 'rl-shared-b-' } } })).toBe(0);
  } finally {
    await b.close();
    await a.close();
  }
});
