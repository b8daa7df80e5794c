import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => t?.close());

it('metadata', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
  console.log(res.statusCode, res.headers, res.body);
  const prm = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/api/mcp/admin' });
  console.log(prm.statusCode, prm.body);
  const adm = await t.app.inject({ method: 'POST', url: '/api/mcp/admin', payload: {} });
  console.log(adm.statusCode, adm.headers['www-authenticate'], adm.body);
  expect(res.statusCode).toBe(200);
});
