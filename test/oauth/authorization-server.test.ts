// The built-in authorization server over real HTTP (the app listening on a port): metadata, PKCE and resource
// rules, the consent form's refusals, tokens bound to this service, keys shared through the database.
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { listGrants } from '../../src/oauth/grant-admin.ts';
import { rotateKeys } from '../../src/oauth/keys.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { authorizationRequest, CALLBACK_URL, obtainTokens, openConsentPage, registerClient, submitConsent } from './mcp-host.ts';

let t: TestApp;
let base: string;
let operatorKey: string;
let narrowKey: string;
let clientId: string;

beforeAll(async () => {
  t = await createTestApp();
  // The pages' words are asserted in English here (consent-language.test.ts covers both catalogues).
  await t.db.shopSettings.create({ data: { language: 'en' } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  operatorKey = await t.key();
  narrowKey = await t.key(['catalog:read']);
  clientId = await registerClient(base, '<img src=x onerror=alert(1)> Evil & Co');
});
afterAll(async () => t?.close());

function authorizeUrl(params: Record<string, string | undefined> = {}) {
  return authorizationRequest(base, { client_id: clientId, scope: 'catalog:read features:read features:write', resource: `${base}/api/mcp`, ...params });
}

/**
 * A refused authorization request: an error page of this service (RFC 9700 §4.11.2), never a redirect to the
 * client's redirect URI, whose owner the operator has not seen yet. Returns the error code the page names.
 */
async function authorizeRefusal(url: URL) {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
  const html = await res.text();
  expect(html).toContain('<h1>Authorization failed</h1>');
  expect(html).not.toContain(CALLBACK_URL);
  return /<p><code>([a-z_]+)<\/code><\/p>/.exec(html)?.[1];
}

describe('metadata', () => {
  it('serves RFC 8414 metadata at the root and at the issuer-path-suffixed URL', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/oauth']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        issuer: `${base}/oauth`,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
        scopes_supported: expect.arrayContaining([...SCOPES]),
      });
    }
  });

  it('publishes an RFC 9728 document per protected URL naming this authorization server and every scope', async () => {
    for (const path of ['/api/mcp', '/api/mcp/admin', '/api/v1']) {
      const res = await fetch(`${base}/.well-known/oauth-protected-resource${path}`);
      expect(await res.json()).toMatchObject({ resource: `${base}${path}`, authorization_servers: [`${base}/oauth`], scopes_supported: [...SCOPES] });
    }
  });

  it('answers a missing or invalid token with 401 and the RFC 9728 pointer of the URL called', async () => {
    const admin = await fetch(`${base}/api/mcp/admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(admin.status).toBe(401);
    expect(admin.headers.get('www-authenticate')).toBe(`Bearer realm="agent-api", resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp/admin"`);
    const tool = await fetch(`${base}/api/v1/tools/features.list`, { method: 'POST', headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' }, body: '{}' });
    expect(tool.status).toBe(401);
    expect(tool.headers.get('www-authenticate')).toBe(
      `Bearer realm="agent-api", error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/api/v1"`,
    );
    const anonymous = await fetch(`${base}/api/v1/tools/features.list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/api/v1"`);
  });
});

describe('/api/mcp/admin', () => {
  /** The tool names an MCP client sees at `path` with these headers. */
  async function listedTools(path: string, headers: Record<string, string>) {
    const client = new Client({ name: 'admin-url-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
    try {
      return (await client.listTools()).tools.map((t) => t.name).sort();
    } finally {
      await client.close();
    }
  }

  it('serves exactly what /api/mcp serves to the same API key, and nothing without one', async () => {
    const headers = { authorization: `Bearer ${narrowKey}` };
    const viaAdmin = await listedTools('/api/mcp/admin', headers);
    expect(viaAdmin).toEqual(await listedTools('/api/mcp', headers));
    expect(viaAdmin).toContain('products.search');
    expect((await fetch(`${base}/api/mcp/admin`, { method: 'GET' })).status).toBe(401);
    expect((await fetch(`${base}/api/mcp/admin`, { method: 'GET', headers })).status).toBe(405);
  });
});

describe('authorization requests', () => {
  it('requires PKCE with S256: none or plain is refused', async () => {
    expect(await authorizeRefusal(authorizeUrl({ code_challenge: undefined, code_challenge_method: undefined }).url)).toBe('invalid_request');
    expect(await authorizeRefusal(authorizeUrl({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }).url)).toBe('invalid_request');
  });

  it('requires a resource, and only this service’s URLs', async () => {
    expect(await authorizeRefusal(authorizeUrl({ resource: undefined }).url)).toBe('invalid_target');
    expect(await authorizeRefusal(authorizeUrl({ resource: 'https://other.example/api/mcp' }).url)).toBe('invalid_target');
  });

  it('shows every error before the operator’s answer as a page, never redirecting to the client (RFC 9700 §4.11.2)', async () => {
    // A client anyone registered, whose redirect URI the request names exactly: still not redirected to.
    const evil = await registerClient(base, 'Open redirect', 'https://evil.example/phish');
    const asEvil = authorizationRequest(base, { client_id: evil, redirect_uri: 'https://evil.example/phish', scope: 'catalog:read' });
    for (const params of [{}, { resource: 'https://other.example/api/mcp' }, { code_challenge_method: 'plain' }, { response_type: 'token' }, { prompt: 'none', resource: `${base}/api/mcp` }]) {
      const url = new URL(asEvil.url);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get('location'), JSON.stringify(params)).toBeNull();
      expect(await res.text()).not.toContain('evil.example');
    }
    // An unknown client, and a redirect URI the client did not register, with a missing resource besides.
    expect(await authorizeRefusal(authorizeUrl({ client_id: 'no-such-client', resource: undefined }).url)).toBe('invalid_client');
    expect(await authorizeRefusal(authorizeUrl({ redirect_uri: 'https://evil.example/cb', resource: undefined }).url)).toBe('invalid_redirect_uri');
  });
});

describe('the consent form', () => {
  it('names a registered client by its redirect host, shows its declared name as text, and lists scopes in words', async () => {
    const page = await openConsentPage(authorizeUrl().url);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<strong>127.0.0.1:9</strong>');
    expect(page.html).toContain('registered itself with this shop; its identity is not verified');
    expect(page.html).toContain('“&#60;img src=x onerror=alert(1)&#62; Evil &#38; Co”');
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain('Read the product catalog <code>catalog:read</code>');
    expect(page.html).not.toMatch(/<script/i);
  });

  it('says plainly when a redirect URI is on another host than the client claims, and names that host first', async () => {
    const viaUri = await registerClient(base, 'Helpful Agent', CALLBACK_URL, { client_uri: 'https://app.example/about' });
    const viaName = await registerClient(base, 'app.example');
    for (const id of [viaUri, viaName]) {
      const page = await openConsentPage(authorizeUrl({ client_id: id }).url);
      expect(page.status).toBe(200);
      expect(page.html).toContain('<p class="warning" role="alert"><strong>This app will send you back to 127.0.0.1:9, not to app.example.</strong>');
      expect(page.html).toContain('<h1>Allow <strong>127.0.0.1:9</strong> to use Agent Shop?</h1>');
      expect(page.html).not.toContain('<strong>app.example</strong>');
    }
    const same = await registerClient(base, 'Local Agent', CALLBACK_URL, { client_uri: 'http://127.0.0.1/' });
    expect((await openConsentPage(authorizeUrl({ client_id: same }).url)).html).not.toContain('class="warning"');
    expect((await openConsentPage(authorizeUrl().url)).html).not.toContain('class="warning"');
  });

  it('sends its page with a script-free CSP, no framing and no caching', async () => {
    const page = await openConsentPage(authorizeUrl().url);
    const res = await fetch(page.url, { headers: { cookie: page.jar.header() } });
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('deny → access_denied with iss and state at the redirect URI, and no grant', async () => {
    const out = await submitConsent(await openConsentPage(authorizeUrl().url), { decision: 'deny' });
    if (!('redirect' in out)) throw new Error(out.html);
    expect(Object.fromEntries(out.redirect.searchParams)).toMatchObject({ error: 'access_denied', state: 'st4te', iss: `${base}/oauth` });
    expect(await listGrants(t.db)).toEqual([]);
  });

  it('refuses a wrong CSRF token, an invalid key, an unrequested scope and a scope the key lacks, granting nothing', async () => {
    const page = await openConsentPage(authorizeUrl().url);
    const cases = [
      { form: { operator_key: operatorKey, scope: 'catalog:read', csrf_token: 'forged' }, status: 403, says: 'This form expired' },
      { form: { operator_key: 'aak_nope', scope: 'catalog:read' }, status: 401, says: 'That API key is not valid' },
      { form: { operator_key: operatorKey, scope: 'orders:write' }, status: 400, says: 'did not ask for: orders:write' },
      { form: { operator_key: narrowKey, scope: 'catalog:read features:write' }, status: 403, says: 'does not have itself: features:write' },
      { form: { operator_key: operatorKey, scope: '' }, status: 400, says: 'Tick at least one permission' },
    ];
    for (const c of cases) {
      const out = await submitConsent(page, { decision: 'approve', ...c.form });
      if ('redirect' in out) throw new Error(`unexpectedly approved: ${JSON.stringify(c.form)}`);
      expect(out.status).toBe(c.status);
      expect(out.html).toContain(c.says);
      // Each rendering of the page carries a fresh token (and cookie, kept by the jar).
      page.csrf = /name="csrf_token" value="([^"]+)"/.exec(out.html)![1];
    }
    expect(await listGrants(t.db)).toEqual([]);
  });

  it('accepts the approved subset as repeated scope fields too (what a browser sends for ticked boxes)', async () => {
    const page = await openConsentPage(authorizeUrl().url);
    const body = new URLSearchParams([['csrf_token', page.csrf], ['operator_key', narrowKey], ['scope', 'catalog:read'], ['decision', 'approve']]);
    const res = await fetch(page.url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.jar.header() }, body });
    expect(res.status).toBe(303);
    const [grant] = await listGrants(t.db);
    expect(grant).toMatchObject({ clientId, scopes: ['catalog:read'], resource: `${base}/api/mcp` });
  });
});

describe('tokens bound to this service', () => {
  const tokensFor = (resource: string, scope: string) => obtainTokens(base, { clientId, operatorKey, resource, scope });

  it('issues an opaque, hour-long token with exactly the approved scopes, stored only as a hash', async () => {
    const tokens = await tokensFor(`${base}/api/v1`, 'features:read');
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'features:read', expires_in: 3600 });
    const rows = await t.db.oAuthRecord.findMany();
    expect(JSON.stringify(rows)).not.toContain(tokens.access_token);
    expect(JSON.stringify(rows)).not.toContain(tokens.refresh_token);
  });

  it('is refused by another service on the same database (another base URL)', async () => {
    const tokens = await tokensFor(`${base}/api/mcp`, 'features:read');
    const other = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: t.url, PUBLIC_BASE_URL: 'https://other.example' }), { db: t.db, secrets: t.secrets });
    try {
      const res = await other.inject({ method: 'POST', url: '/api/v1/tools/features.list', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' }, payload: '{}' });
      expect(res.statusCode).toBe(401);
      const here = await fetch(`${base}/api/v1/tools/features.list`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(here.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('signing keys', () => {
  it('are generated once into the database and shared by every instance; rotation puts a new key first and keeps the previous one', async () => {
    const jwks = async (url: string) => ((await (await fetch(url)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const before = await jwks(`${base}/oauth/jwks`);
    expect(before).toHaveLength(1);
    expect(await t.db.oAuthKey.count({ where: { use: 'sig' } })).toBe(1);

    const second = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: t.url }), { db: t.db, secrets: t.secrets });
    await second.listen({ host: '127.0.0.1', port: 0 });
    const secondBase = `http://127.0.0.1:${(second.server.address() as AddressInfo).port}`;
    try {
      expect(await jwks(`${secondBase}/oauth/jwks`)).toEqual(before);
      const { kid } = await rotateKeys(t.db, t.secrets);
      const third = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: t.url }), { db: t.db, secrets: t.secrets });
      await third.listen({ host: '127.0.0.1', port: 0 });
      try {
        expect(await jwks(`http://127.0.0.1:${(third.server.address() as AddressInfo).port}/oauth/jwks`)).toEqual([kid, ...before]);
      } finally {
        await third.close();
      }
      await rotateKeys(t.db, t.secrets);
      expect(await t.db.oAuthKey.count({ where: { use: 'sig', retiredAt: null } })).toBe(2);
      expect((await t.db.oAuthKey.findUniqueOrThrow({ where: { id: before[0] } })).retiredAt).not.toBeNull();
    } finally {
      await second.close();
    }
  });
});

describe('client metadata documents', () => {
  it('are not fetched from private addresses unless OUTBOUND_ALLOW_PRIVATE=1', async () => {
    const res = await fetch(authorizeUrl({ client_id: 'https://127.0.0.1:9/client.json' }).url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid_client');
  });
});

