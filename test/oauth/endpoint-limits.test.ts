// The authorization server's endpoints are limited per IP with the service's RateLimit headers, registered clients
// are capped in size and removed after 7 days unused: over HTTP (app.inject, one client address per scenario)
// against PostgreSQL, asserting on the answers and the rows.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordGrant } from '../../src/oauth/grant-admin.ts';
import { CLIENT_IDLE_MS, sweepOAuthRecords } from '../../src/oauth/housekeeping.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';
import { CALLBACK_URL, authorizationRequest, obtainTokens, registerClient } from './mcp-host.ts';

let t: TestApp;

const TOKEN_MAX = 5;
const AUTHORIZE_MAX = 4;

beforeAll(async () => {
  // The registration limit is the documented default (20 an hour); the other two are lowered to keep the test short.
  t = await createTestApp({
    env: { PUBLIC_BASE_URL: 'http://shop.test', RATE_LIMIT_OAUTH_REGISTER_MAX: '20', RATE_LIMIT_OAUTH_TOKEN_MAX: String(TOKEN_MAX), RATE_LIMIT_OAUTH_AUTHORIZE_MAX: String(AUTHORIZE_MAX) },
  });
});
afterAll(async () => t?.close());

const metadata = (name: string) => ({
  client_name: name,
  redirect_uris: [CALLBACK_URL],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

const register = (remoteAddress: string, body: unknown = metadata('Limited')) =>
  t.app.inject({ method: 'POST', url: '/oauth/register', remoteAddress, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

function expectRateLimited(res: LightMyRequestResponse, policy: string, limit: number, windowSeconds: number) {
  expectProblem(res, 429, 'rate_limited');
  expect(res.headers['ratelimit-policy']).toBe(`"${policy}";q=${limit};w=${windowSeconds}`);
  expect(res.headers['ratelimit']).toMatch(new RegExp(`^"${policy}";r=0;t=\\d+$`));
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

describe('per-IP limits of the OAuth endpoints', () => {
  it('150 registrations from one address: the first 20 registered, the rest 429 with RateLimit headers; another address is not affected', async () => {
    const answers: LightMyRequestResponse[] = [];
    // One after another: the in-memory counter store reports one shared state to requests counted in the same tick.
    for (let i = 0; i < 150; i++) answers.push(await register('198.51.100.10'));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(20);
    const refused = answers.filter((r) => r.statusCode === 429);
    expect(refused).toHaveLength(130);
    expectRateLimited(refused[0], 'oauth-register', 20, 3600);
    const accepted = answers.find((r) => r.statusCode === 201)!;
    expect(accepted.headers['ratelimit-policy']).toBe('"oauth-register";q=20;w=3600');
    expect(accepted.headers['ratelimit-limit']).toBe('20');
    expect(await t.db.oAuthRecord.count({ where: { id: { startsWith: 'Client:' } } })).toBe(20);
    expect((await register('198.51.100.11')).statusCode).toBe(201);
  });

  it('the token endpoint answers 429 problem+json with Retry-After past its limit, before the library reads the request', async () => {
    const post = () =>
      t.app.inject({ method: 'POST', url: '/oauth/token', remoteAddress: '198.51.100.20', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=refresh_token&refresh_token=nope&client_id=nope' });
    for (let i = 0; i < TOKEN_MAX; i++) {
      const res = await post();
      expect(res.statusCode).toBe(401); // the library's own answer (unknown client), with our headers
      expect(res.headers['ratelimit-policy']).toBe(`"oauth-token";q=${TOKEN_MAX};w=60`);
    }
    expectRateLimited(await post(), 'oauth-token', TOKEN_MAX, 60);
  });

  it('the authorization endpoint and the consent page share one limit', async () => {
    const clientId = JSON.parse((await register('198.51.100.31')).body).client_id as string;
    const { url } = authorizationRequest('http://shop.test', { client_id: clientId, resource: 'http://shop.test/api/mcp', scope: 'features:read' });
    const authorize = () => t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, remoteAddress: '198.51.100.30' });
    const first = await authorize();
    expect(first.statusCode).toBe(303);
    expect(String(first.headers.location)).toContain('/oauth/interaction/');
    expect(first.headers['ratelimit-policy']).toBe(`"oauth-authorize";q=${AUTHORIZE_MAX};w=60`);
    const consent = () => t.app.inject({ method: 'GET', url: new URL(String(first.headers.location), 'http://shop.test').pathname, remoteAddress: '198.51.100.30' });
    for (let i = 1; i < AUTHORIZE_MAX; i++) expect((await consent()).statusCode).toBe(400); // no interaction cookie: the page's own answer
    expectRateLimited(await consent(), 'oauth-authorize', AUTHORIZE_MAX, 60);
    expectRateLimited(await authorize(), 'oauth-authorize', AUTHORIZE_MAX, 60);
    const post = await t.app.inject({ method: 'POST', url: new URL(String(first.headers.location), 'http://shop.test').pathname, remoteAddress: '198.51.100.30', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=approve' });
    expectRateLimited(post, 'oauth-authorize', AUTHORIZE_MAX, 60);
  });
});

describe('registered clients', () => {
  it('are refused over 8 KB of metadata with invalid_client_metadata, and nothing is stored', async () => {
    const before = await t.db.oAuthRecord.count({ where: { id: { startsWith: 'Client:' } } });
    const res = await register('198.51.100.40', metadata('x'.repeat(9 * 1024)));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringContaining('8192 bytes') });
    expect(await t.db.oAuthRecord.count({ where: { id: { startsWith: 'Client:' } } })).toBe(before);
    expect((await register('198.51.100.40', metadata('y'.repeat(6 * 1024)))).statusCode).toBe(201);
  });

  it('unused for 7 days are swept, ending their grants; a client in use stays, and a token issued counts as use', async () => {
    const listening = await createTestApp();
    try {
      await listening.app.listen({ host: '127.0.0.1', port: 0 });
      const address = listening.app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const stale = await registerClient(base, 'Stale');
      const active = await registerClient(base, 'Active');
      const operator = await listening.key(['features:read']);
      const longAgo = new Date(Date.now() - CLIENT_IDLE_MS - 60_000);
      await listening.db.oAuthRecord.updateMany({ where: { id: { in: [`Client:${stale}`, `Client:${active}`] } }, data: { lastUsedAt: longAgo } });
      // A token issued to the active client is a use: its lastUsedAt moves to now.
      await obtainTokens(base, { clientId: active, operatorKey: operator, resource: `${base}/api/v1`, scope: 'features:read' });
      const touched = await listening.db.oAuthRecord.findUniqueOrThrow({ where: { id: `Client:${active}` } });
      expect(touched.lastUsedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
      const keyId = (await listening.db.apiKey.findFirstOrThrow()).id;
      await recordGrant(listening.db, { id: 'stale-grant', clientId: stale, clientName: 'Stale', apiKeyId: keyId, scopes: ['features:read'], resource: `${base}/api/v1`, createdAt: longAgo });

      expect(await sweepOAuthRecords(listening.db)).toMatchObject({ clients: 1, grantsEnded: 1 });
      expect(await listening.db.oAuthRecord.findUnique({ where: { id: `Client:${stale}` } })).toBeNull();
      expect(await listening.db.oAuthRecord.findUnique({ where: { id: `Client:${active}` } })).not.toBeNull();
      expect((await listening.db.oAuthGrant.findUniqueOrThrow({ where: { id: 'stale-grant' } })).revokedAt).not.toBeNull();
      const audit = await listening.db.auditEntry.findFirstOrThrow({ where: { entityId: 'stale-grant', tool: 'oauth.revoke' } });
      expect(audit.meta).toEqual({ reason: 'its client was not used for 7 days and was removed' });
      // The swept client is gone for the library too.
      const { url } = authorizationRequest(base, { client_id: stale, resource: `${base}/api/mcp`, scope: 'features:read' });
      expect(await (await fetch(url, { redirect: 'manual' })).text()).toContain('invalid_client');
    } finally {
      await listening.close();
    }
  });
});
