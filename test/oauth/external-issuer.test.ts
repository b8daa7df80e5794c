// OAUTH_ISSUER: the service runs no authorization server and trusts another one's JWT access tokens. The other one
// is a second instance of our own, told (OAUTH_EXTRA_RESOURCES) that it may issue tokens for this service.
import type { FastifyInstance } from 'fastify';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createKey } from '../../src/auth/key-admin.ts';
import { loadConfig } from '../../src/config.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/processes.ts';
import { obtainTokens, registerClient } from './mcp-host.ts';

let issuerDb: TestDatabase;
let serviceDb: TestDatabase;
let issuerApp: FastifyInstance;
let serviceApp: FastifyInstance;
let issuerBase: string;
let serviceBase: string;
let clientId: string;
let operatorKey: string;

async function start(db: TestDatabase, port: number, env: Record<string, string>) {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: db.url, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...env });
  const app = await buildApp(config, { db: db.db });
  await app.listen({ host: '127.0.0.1', port });
  return app;
}

beforeAll(async () => {
  [issuerDb, serviceDb] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  const [issuerPort, servicePort] = [await freePort(), await freePort()];
  issuerBase = `http://127.0.0.1:${issuerPort}`;
  serviceBase = `http://127.0.0.1:${servicePort}`;
  issuerApp = await start(issuerDb, issuerPort, {
    OAUTH_EXTRA_RESOURCES: ['/api/mcp', '/api/mcp/admin', '/api/v1'].map((p) => `${serviceBase}${p}`).join(','),
  });
  serviceApp = await start(serviceDb, servicePort, { OAUTH_ISSUER: `${issuerBase}/oauth` });
  clientId = await registerClient(issuerBase);
  operatorKey = (await createKey(issuerDb.db, { name: 'issuer operator', scopes: [...SCOPES] })).key;
});

afterAll(async () => {
  await serviceApp?.close();
  await issuerApp?.close();
  await Promise.all([issuerDb?.drop(), serviceDb?.drop()]);
});

const call = (token: string, tool: string, body: unknown = {}) =>
  fetch(`${serviceBase}/api/v1/tools/${tool}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('with OAUTH_ISSUER set', () => {
  it('runs no authorization server and points its RFC 9728 documents at the issuer', async () => {
    expect((await fetch(`${serviceBase}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await fetch(`${serviceBase}/oauth/authorize`)).status).toBe(404);
    const metadata = await (await fetch(`${serviceBase}/.well-known/oauth-protected-resource/api/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${serviceBase}/api/mcp`, authorization_servers: [`${issuerBase}/oauth`], scopes_supported: [...SCOPES] });
  });

  it('accepts the issuer’s JWTs for this service with their scope claim, and refuses scopes they lack', async () => {
    const tokens = await obtainTokens(issuerBase, { clientId, operatorKey, resource: `${serviceBase}/api/mcp`, scope: 'features:read' });
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ iss: `${issuerBase}/oauth`, aud: `${serviceBase}/api/mcp`, scope: 'features:read' });

    expect((await call(tokens.access_token, 'features.list')).status).toBe(200);
    const refused = await call(tokens.access_token, 'features.set', { key: 'x', enabled: true });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="features:write"');
  });

  it('refuses the issuer’s tokens for another resource, and its JWTs are refused by the issuer’s own resources', async () => {
    const own = await obtainTokens(issuerBase, { clientId, operatorKey, resource: `${issuerBase}/api/mcp`, scope: 'features:read' });
    const refused = await call(own.access_token, 'features.list');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${serviceBase}/.well-known/oauth-protected-resource/api/v1"`);

    const forService = await obtainTokens(issuerBase, { clientId, operatorKey, resource: `${serviceBase}/api/v1`, scope: 'features:read' });
    const atIssuer = await fetch(`${issuerBase}/api/v1/tools/features.list`, {
      method: 'POST', headers: { authorization: `Bearer ${forService.access_token}`, 'content-type': 'application/json' }, body: '{}',
    });
    expect(atIssuer.status).toBe(401);
  });

  it('refuses a JWT whose claims were changed or whose signature does not verify', async () => {
    const tokens = await obtainTokens(issuerBase, { clientId, operatorKey, resource: `${serviceBase}/api/v1`, scope: 'features:read' });
    const [header, payload, signature] = tokens.access_token.split('.');
    const widened = Buffer.from(JSON.stringify({ ...decodeJwt(tokens.access_token), scope: 'features:read features:write' })).toString('base64url');
    expect((await call(`${header}.${widened}.${signature}`, 'features.list')).status).toBe(401);
    expect((await call(`${header}.${payload}.${signature.slice(0, -4)}AAAA`, 'features.list')).status).toBe(401);
  });
});
