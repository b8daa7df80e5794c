// What images.search_stock shares beyond one process: its cache in Redis (REDIS_URL), and its logs.
import { randomInt, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createKey } from '../../src/auth/key-admin.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startServerProcess } from '../helpers/processes.ts';
import { sendJson, startLocalServer, type LocalServer } from '../outbound/local-server.ts';

const PEXELS_KEY = `pexels-secret-${randomUUID()}`;
let provider: LocalServer;
let database: TestDatabase;
let redis: Redis;
let respond: 'ok' | 'fail' = 'ok';
// A photo id of its own, so its cache entry is new in a Redis other runs have used.
const PHOTO_ID = randomInt(1, 2 ** 47);
const PHOTO = {
  id: PHOTO_ID,
  width: 10,
  height: 10,
  url: 'https://www.pexels.com/photo/7/',
  photographer: 'A. Photographer',
  photographer_url: 'https://www.pexels.com/@a',
  alt: 'A mug',
  src: { large2x: 'https://images.pexels.com/photos/7/a.jpeg?w=1880', medium: 'https://images.pexels.com/photos/7/a.jpeg?h=350' },
};

beforeAll(async () => {
  provider = await startLocalServer((_req, res) =>
    respond === 'ok' ? sendJson(res, 200, { total_results: 1, page: 1, per_page: 10, photos: [PHOTO] }) : sendJson(res, 500, { error: 'RAW-PROVIDER-BODY' }),
  );
  database = await createTestDatabase();
  redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  redis?.disconnect();
  await provider?.close();
  await database?.drop();
});

const env = () => ({
  NODE_ENV: 'test',
  DATABASE_URL: database.url,
  OUTBOUND_ALLOW_PRIVATE: '1',
  IMAGES_PROVIDER: 'pexels',
  PEXELS_API_URL: `${provider.origin}/pexels`,
  PEXELS_API_KEY: PEXELS_KEY,
});

it('with Redis, a search cached by one instance is answered by another for 10 minutes', async () => {
  const instances = await Promise.all([0, 1].map(() => buildApp(loadConfig({ ...env(), LOG_LEVEL: 'silent', REDIS_URL: 'redis://127.0.0.1:6379' }), { db: database.db, redis })));
  const { key } = await createKey(database.db, { name: 'images', scopes: ['marketing:write'] });
  const call = (i: number, query: string) =>
    instances[i].inject({ method: 'POST', url: '/api/v1/tools/images.search_stock', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: { query } });
  const cachedKeys = () => redis.keys('agent-api-images:*');
  try {
    const query = `mug ${randomUUID()}`;
    const keysBefore = new Set(await cachedKeys());
    const first = await call(0, query);
    expect(first.statusCode, first.body).toBe(200);
    // One entry for the page (10 minutes) and one for the photo in it (remembered a day for products.attach_image).
    const added = (await cachedKeys()).filter((k) => !keysBefore.has(k));
    const ttls = (await Promise.all(added.map((k) => redis.pttl(k)))).sort((a, b) => a - b);
    expect(ttls).toHaveLength(2);
    expect(ttls[0]).toBeGreaterThan(590_000);
    expect(ttls[0]).toBeLessThanOrEqual(600_000);
    expect(ttls[1]).toBeGreaterThan(86_390_000);
    expect(ttls[1]).toBeLessThanOrEqual(86_400_000);
    for (const k of added) expect(await redis.get(k)).not.toContain(PEXELS_KEY);

    const calls = provider.requests.length;
    const second = await call(1, query);
    expect(second.json()).toEqual(first.json());
    expect(provider.requests.length).toBe(calls);
    await redis.del(...added);
  } finally {
    await Promise.all(instances.map((app) => app.close()));
  }
});

it('logs a failed provider call by provider and kind, never with its URL, key or body', async () => {
  const server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], { ...env(), NODE_ENV: 'development', LOG_LEVEL: 'debug', REDIS_URL: undefined });
  try {
    const { key } = await createKey(database.db, { name: 'images-logs', scopes: ['marketing:write'] });
    const call = (query: string) =>
      fetch(`http://127.0.0.1:${server.port}/api/v1/tools/images.search_stock`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
    respond = 'ok';
    expect((await call('logged ok')).status).toBe(200);
    respond = 'fail';
    expect((await call('logged failure')).status).toBe(502);

    // Log lines are written asynchronously: wait for the failed request's last one.
    for (let i = 0; i < 100 && (server.output().match(/"request completed"/g) ?? []).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.msg === 'image provider call failed')).toMatchObject({ level: 40, provider: 'pexels', failure: 'status 500' });
    for (const secret of [PEXELS_KEY, `127.0.0.1:${provider.port}`, 'RAW-PROVIDER-BODY']) expect(server.output()).not.toContain(secret);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
