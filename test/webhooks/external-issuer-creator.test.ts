// With OAUTH_ISSUER, a token of the other authorization server names no API key of this service, so nothing here
// could check its access again at delivery time: it may not create or re-save a webhook endpoint.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createKey } from '../../src/auth/key-admin.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/processes.ts';
import { obtainTokens, registerClient } from '../oauth/mcp-host.ts';

const dbs: TestDatabase[] = [];
const apps: FastifyInstance[] = [];
let serviceBase: string;
let token: string;

/** One instance on its own database, listening on `port`. */
async function instance(port: number, env: Record<string, string>): Promise<TestDatabase> {
  const db = await createTestDatabase();
  dbs.push(db);
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: db.url, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, OUTBOUND_ALLOW_PRIVATE: '1', ...env });
  const app = await buildApp(config, { db: db.db });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port });
  return db;
}

beforeAll(async () => {
  const [issuerPort, servicePort] = [await freePort(), await freePort()];
  const issuerBase = `http://127.0.0.1:${issuerPort}`;
  serviceBase = `http://127.0.0.1:${servicePort}`;
  const issuerDb = await instance(issuerPort, { OAUTH_EXTRA_RESOURCES: `${serviceBase}/api/v1` });
  await instance(servicePort, { OAUTH_ISSUER: `${issuerBase}/oauth` });
  const { key } = await createKey(issuerDb.db, { name: 'issuer operator', scopes: ['settings:write', 'settings:read', 'features:read'] });
  const clientId = await registerClient(issuerBase);
  ({ access_token: token } = await obtainTokens(issuerBase, { clientId, operatorKey: key, resource: `${serviceBase}/api/v1`, scope: 'settings:write settings:read features:read' }));
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await Promise.all(dbs.map((db) => db.drop()));
});

it('refuses webhooks.create with 403 even when the token carries every scope the events need, and creates nothing', async () => {
  const call = (tool: string, body: unknown) =>
    fetch(`${serviceBase}/api/v1/tools/${tool}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await call('webhooks.list', {})).status).toBe(200);
  const res = await call('webhooks.create', { url: 'http://127.0.0.1:9/hooks', events: ['feature.*'] });
  expect(res.status).toBe(403);
  const body = (await res.json()) as { code: string; detail: string };
  expect(body).toMatchObject({ code: 'insufficient_scope', detail: expect.stringMatching(/API key of this service/) });
  expect(await dbs[1].db.webhookEndpoint.count()).toBe(0);
});
