// One origin decides (docs/deploy.md, "The public origin"). Every discovery and OAuth metadata route of the app,
// enumerated from its route table, is asked with forged Host, X-Forwarded-Host and X-Forwarded-Proto headers, from a
// peer TRUST_PROXY trusts and from one it does not, with and without PUBLIC_BASE_URL: no forged name may appear
// in any body or header. With PUBLIC_BASE_URL the documents name it whatever the headers; without it they name the
// request's own Host (or a trusted proxy's forwarded host) and say so with Vary.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationServer, MAX_ISSUERS } from '../../src/oauth/authorization-server.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { authorizationRequest, CookieJar, registerClient } from './mcp-host.ts';

const BALANCER = '10.1.0.5';
const STRANGER = '198.51.100.9';
const HOST = 'shop.test:8080';
const FORGED = { host: 'evil-host.example', 'x-forwarded-host': 'evil-forwarded.example', 'x-forwarded-proto': 'https' };
const FORGED_NAMES = ['evil-host.example', 'evil-forwarded.example'];
const VARY = ['Host', 'X-Forwarded-Host', 'X-Forwarded-Proto'];
/** Origins the documents may name besides the service's own: specifications and schemas they cite. */
const SPEC_ORIGINS = new Set(['https://ucp.dev', 'https://www.rfc-editor.org', 'https://static.modelcontextprotocol.io', 'https://modelcontextprotocol.io', 'https://json-schema.org', 'https://iana.org']);

/**
 * The GET routes of the app that describe it (every /.well-known/ route, the MCP server card, the OpenAPI
 * document), read from Fastify's route tree, plus the library's own discovery document and key set under /oauth/*.
 */
function discoveryRoutes(app: FastifyInstance): string[] {
  const paths: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([^)]*)\)/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const parent = stack[depth - 1] ?? '';
    const path = depth === 0 ? m[2] : `${parent}${parent.endsWith('/') || m[2].startsWith('/') ? '' : '/'}${m[2]}`;
    stack[depth] = path;
    if (m[3].split(', ').includes('GET') && !/[:*]/.test(path) && /\.well-known\/|server-card|^\/openapi\.json$/.test(path)) paths.push(path);
  }
  return [...paths, '/oauth/.well-known/openid-configuration', '/oauth/jwks'];
}

const URL_PATTERN = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>,;\\]+/gi;

/** Every origin named in the answer's body and headers. */
function originsIn(res: { body: string; headers: Record<string, unknown> }): Set<string> {
  const text = `${res.body}\n${JSON.stringify(res.headers)}`;
  return new Set([...text.matchAll(URL_PATTERN)].map((m) => new URL(m[0]).origin));
}

type Case = { env: Record<string, string>; peer: string; headers: Record<string, string>; origin: string; vary: boolean };

async function expectOnlyOrigin(t: TestApp, c: Case) {
  const routes = discoveryRoutes(t.app);
  expect(routes).toEqual(expect.arrayContaining([
    '/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-protected-resource/api/mcp/admin', '/.well-known/oauth-protected-resource/api/v1',
    '/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/oauth', '/.well-known/api-catalog',
    '/.well-known/mcp/server-card.json', '/.well-known/mcp.json', '/.well-known/mcp/catalog.json', '/.well-known/ai-catalog.json', '/api/mcp/server-card', '/openapi.json',
  ]));
  const answers = [
    ...(await Promise.all(routes.map(async (url) => ({ url, res: await t.app.inject({ method: 'GET', url, remoteAddress: c.peer, headers: c.headers }) })))),
    // A refusal on a protected URL points at its RFC 9728 document.
    { url: '/api/mcp/admin (401)', res: await t.app.inject({ method: 'POST', url: '/api/mcp/admin', remoteAddress: c.peer, headers: { ...c.headers, 'content-type': 'application/json' }, payload: '{}' }) },
  ];
  for (const { url, res } of answers) {
    expect(res.statusCode, url).toBe(url.endsWith('(401)') ? 401 : 200);
    for (const name of FORGED_NAMES) expect(`${res.body}${JSON.stringify(res.headers)}`, url).not.toContain(name);
    // The OpenAPI document's examples name made-up shops; its own origin is in `servers`.
    const named = url === '/openapi.json' ? new Set((res.json() as { servers: { url: string }[] }).servers.map((s) => new URL(s.url).origin)) : originsIn(res);
    const foreign = [...named].filter((o) => o !== c.origin && !SPEC_ORIGINS.has(o));
    expect(foreign, url).toEqual([]);
    // The library adds Origin to Vary for its CORS answers.
    const vary = String(res.headers.vary ?? '').split(',').map((v) => v.trim()).filter(Boolean);
    if (!url.endsWith('(401)')) expect(vary.filter((v) => v !== 'Origin'), url).toEqual(c.vary ? VARY : []);
  }
  const metadata = answers.find((a) => a.url === '/.well-known/oauth-authorization-server')!.res.json();
  expect(metadata).toMatchObject({ issuer: `${c.origin}/oauth`, authorization_endpoint: `${c.origin}/oauth/authorize`, jwks_uri: `${c.origin}/oauth/jwks` });
  const resource = answers.find((a) => a.url === '/.well-known/oauth-protected-resource/api/mcp')!.res.json();
  expect(resource).toMatchObject({ resource: `${c.origin}/api/mcp`, authorization_servers: [`${c.origin}/oauth`] });
}

describe('discovery and OAuth metadata under forged Host and forwarded headers', () => {
  const apps = new Map<string, TestApp>();
  const appWith = async (env: Record<string, string>) => {
    const key = JSON.stringify(env);
    if (!apps.has(key)) apps.set(key, await createTestApp({ env }));
    return apps.get(key)!;
  };
  afterAll(async () => {
    for (const t of apps.values()) await t.close();
  });

  const forgedForwarding = { host: HOST, 'x-forwarded-host': FORGED['x-forwarded-host'], 'x-forwarded-proto': 'https' };
  const cases: [string, Case][] = [
    ['no PUBLIC_BASE_URL, TRUST_PROXY off: forged forwarded headers are ignored, the Host decides',
      { env: {}, peer: STRANGER, headers: forgedForwarding, origin: `http://${HOST}`, vary: true }],
    ['no PUBLIC_BASE_URL, TRUST_PROXY off: even from the address a proxy would have',
      { env: {}, peer: BALANCER, headers: forgedForwarding, origin: `http://${HOST}`, vary: true }],
    ['no PUBLIC_BASE_URL, TRUST_PROXY names the balancer: a stranger’s forwarded headers are ignored',
      { env: { TRUST_PROXY: BALANCER }, peer: STRANGER, headers: forgedForwarding, origin: `http://${HOST}`, vary: true }],
    ['no PUBLIC_BASE_URL, TRUST_PROXY names the balancer: the balancer’s forwarded host and scheme count',
      { env: { TRUST_PROXY: BALANCER }, peer: BALANCER, headers: { host: HOST, 'x-forwarded-host': 'shop.example.net', 'x-forwarded-proto': 'https' }, origin: 'https://shop.example.net', vary: true }],
    ['PUBLIC_BASE_URL, TRUST_PROXY off: Host and forwarded headers are ignored',
      { env: { PUBLIC_BASE_URL: 'https://shop.example.com' }, peer: STRANGER, headers: FORGED, origin: 'https://shop.example.com', vary: false }],
    ['PUBLIC_BASE_URL, TRUST_PROXY names the balancer: not even the balancer moves it',
      { env: { PUBLIC_BASE_URL: 'https://shop.example.com', TRUST_PROXY: BALANCER }, peer: BALANCER, headers: FORGED, origin: 'https://shop.example.com', vary: false }],
    ['PUBLIC_BASE_URL, TRUST_PROXY names the balancer: nor a stranger',
      { env: { PUBLIC_BASE_URL: 'https://shop.example.com', TRUST_PROXY: BALANCER }, peer: STRANGER, headers: FORGED, origin: 'https://shop.example.com', vary: false }],
  ];
  it.each(cases)('%s', async (_name, c) => expectOnlyOrigin(await appWith(c.env), c));
});

describe('the authorization flow under a forged X-Forwarded-Host', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: BALANCER } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t?.close());

  it('sends the browser back to this origin after consent, not to the host a peer TRUST_PROXY does not trust named', async () => {
    const clientId = await registerClient(base);
    const { url } = authorizationRequest(base, { client_id: clientId, scope: 'catalog:read', resource: `${base}/api/mcp` });
    const forged = { 'x-forwarded-host': 'evil-forwarded.example', 'x-forwarded-proto': 'https' };
    const jar = new CookieJar();
    const step = async (target: string, init: RequestInit = {}) => {
      const res = await fetch(target, { ...init, redirect: 'manual', headers: { ...forged, ...(init.headers as Record<string, string>), cookie: jar.header() } });
      jar.store(res);
      return res;
    };
    const authorize = await step(url.href);
    expect(authorize.status).toBe(303);
    const consentUrl = new URL(authorize.headers.get('location')!, base);
    expect(consentUrl.origin).toBe(base);
    const html = await (await step(consentUrl.href)).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1];
    const body = new URLSearchParams({ csrf_token: csrf, operator_key: await t.key(), scope: 'catalog:read', decision: 'approve' });
    const approved = await step(consentUrl.href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(approved.status).toBe(303);
    // The way back (the library's resume URL) is absolute, built from the origin of the authorization request.
    expect(new URL(approved.headers.get('location')!).origin).toBe(base);
    const callback = await step(approved.headers.get('location')!);
    expect(new URL(callback.headers.get('location')!).searchParams.get('iss')).toBe(`${base}/oauth`);
  });
});

describe('issuers per origin', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it(`keeps the ${MAX_ISSUERS} most recently used, evicting the least recently used first`, async () => {
    const server = new AuthorizationServer({ db: t.db, config: t.config, log: t.app.log, fetch, secrets: t.secrets });
    const bases = Array.from({ length: MAX_ISSUERS + 1 }, (_, i) => `http://host-${i}.test`);
    const first = [];
    for (const b of bases.slice(0, MAX_ISSUERS)) first.push(await server.providerFor(b));
    // Using host-0 again makes host-1 the least recently used one, which the next new origin pushes out.
    expect(await server.providerFor(bases[0])).toBe(first[0]);
    await server.providerFor(bases[MAX_ISSUERS]);
    expect(await server.providerFor(bases[0])).toBe(first[0]);
    for (let i = 2; i < MAX_ISSUERS; i++) expect(await server.providerFor(bases[i])).toBe(first[i]);
    const rebuilt = await server.providerFor(bases[1]);
    expect(rebuilt).not.toBe(first[1]);
    expect(rebuilt.issuer).toBe('http://host-1.test/oauth');
  });

  it('a stream of made-up Host headers never costs more than the bound', async () => {
    for (let i = 0; i < 3 * MAX_ISSUERS; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server', headers: { host: `made-up-${i}.test` } });
      expect(res.json()).toMatchObject({ issuer: `http://made-up-${i}.test/oauth` });
    }
  });
});
