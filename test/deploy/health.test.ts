// /livez: the process answers. /readyz: the database answers, every migration of this release is applied, and no
// shutdown has begun. /health is /livez's older name. None of them is rate limited.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDb, type Db } from '../../src/db/client.ts';
import type { Lifecycle } from '../../src/http/health.ts';
import { createDeployApp, type DeployApp } from './deploy-app.ts';

const get = (t: DeployApp, url: string) => t.app.inject({ method: 'GET', url });

describe('health endpoints (src/http/health.ts)', () => {
  const lifecycle: Lifecycle = { draining: false };
  let t: DeployApp;
  beforeAll(async () => {
    t = await createDeployApp({ RATE_LIMIT_ANON_MAX: '1', RATE_LIMIT_PREAUTH_MAX: '1' }, { lifecycle });
  });
  afterAll(async () => t?.close());

  it('answer 200 when live and ready, and are never rate limited', async () => {
    for (let i = 0; i < 5; i++) {
      for (const url of ['/livez', '/readyz', '/health']) {
        const res = await get(t, url);
        expect([url, res.statusCode, res.json()]).toEqual([url, 200, { ok: true }]);
        expect(res.headers['ratelimit-policy']).toBeUndefined();
      }
    }
  });

  it('readyz answers 503 "migrations pending" when a migration of this release is not applied', async () => {
    const [last] = await t.database.db.$queryRaw<{ migration_name: string }[]>`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1`;
    await t.database.db.$executeRaw`UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = ${last.migration_name}`;
    try {
      const res = await get(t, '/readyz');
      expect([res.statusCode, res.json()]).toEqual([503, { ok: false, reason: 'migrations pending' }]);
      expect((await get(t, '/livez')).statusCode).toBe(200);
    } finally {
      await t.database.db.$executeRaw`UPDATE "_prisma_migrations" SET rolled_back_at = NULL WHERE migration_name = ${last.migration_name}`;
    }
    expect((await get(t, '/readyz')).statusCode).toBe(200);
  });

  it('while draining, readyz answers 503 and every response closes its connection; livez stays 200', async () => {
    lifecycle.draining = true;
    try {
      const ready = await get(t, '/readyz');
      expect([ready.statusCode, ready.json(), ready.headers.connection]).toEqual([503, { ok: false, reason: 'draining' }, 'close']);
      const live = await get(t, '/livez');
      expect([live.statusCode, live.headers.connection]).toEqual([200, 'close']);
      const call = await t.app.inject({ method: 'POST', url: '/api/v1/tools/categories.list', headers: { 'content-type': 'application/json' }, payload: '{}' });
      expect([call.statusCode, call.headers.connection]).toEqual([200, 'close']);
    } finally {
      lifecycle.draining = false;
    }
  });
});

describe('readyz without a database', () => {
  const url = 'postgresql://postgres@127.0.0.1:1/nowhere'; // nothing listens on port 1
  let app: FastifyInstance;
  let db: Db;
  beforeAll(async () => {
    db = createDb({ connectionString: url });
    app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url }), { db });
  });
  afterAll(async () => {
    await app?.close();
    await db?.$disconnect();
  });

  it('answers 503 "database unreachable" while livez and health answer 200', async () => {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect([res.statusCode, res.json()]).toEqual([503, { ok: false, reason: 'database unreachable' }]);
    expect((await app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});
