// An MCP host signs in with OAuth against a running server, with the SDK's own client-side OAuth provider:
// discovery from the 401, a client metadata document or dynamic registration, consent through the form contract,
// exactly the approved tools, step-up, refresh rotation and reuse detection, revocation, grants ending.
import type { Server } from 'node:https';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../src/auth/key-admin.ts';
import { listGrants, revokeGrant } from '../../src/oauth/grant-admin.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startServerProcess, type ServerProcess } from '../helpers/processes.ts';
import { approve, hostMetadata, startHttpsServer, TestHost } from './mcp-host.ts';

let database: TestDatabase;
let server: ServerProcess;
let base: string;
let cimd: { server: Server; origin: string; caFile: string };
let operator: { id: string; key: string };
const cimdFetches: string[] = [];

/** Revocations take effect within 1 s on every instance: each instance re-reads what it cached after 0.75 s. */
const REVOCATION_DELAY_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  database = await createTestDatabase();
  cimd = await startHttpsServer((req, res) => {
    cimdFetches.push(req.url!);
    const clientId = `${cimd.origin}${req.url}`;
    const document =
      req.url === '/huge.json' ? { client_id: clientId, ...hostMetadata('x'.repeat(70 * 1024)) }
      : req.url === '/impostor.json' ? { ...hostMetadata('Impostor'), client_id: `${cimd.origin}/host/client.json` }
      : { client_id: clientId, ...hostMetadata('Test Host') };
    if (req.url === '/missing.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': ['/no-cache.json', '/burst.json'].includes(req.url!) ? 'no-store' : 'max-age=60' });
    res.end(JSON.stringify(document));
  });
  server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], {
    DATABASE_URL: database.url,
    // Loopback documents need OUTBOUND_ALLOW_PRIVATE, which production refuses.
    NODE_ENV: 'development',
    OUTBOUND_ALLOW_PRIVATE: '1',
    NODE_EXTRA_CA_CERTS: cimd.caFile,
    RATE_LIMIT_ANON_MAX: '100000',
    RATE_LIMIT_PREAUTH_MAX: '100000',
    RATE_LIMIT_AUTH_MAX: '100000',
    RATE_LIMIT_OAUTH_AUTHORIZE_MAX: '100000',
  });
  base = `http://127.0.0.1:${server.port}`;
  operator = await createKey(database.db, { name: 'operator', scopes: [...SCOPES] });
}, 90_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  cimd?.server.close();
  await database?.drop();
});

const adminUrl = () => new URL(`${base}/api/mcp/admin`);
const newClient = () => new Client({ name: 'test-host', version: '1.0.0' });

/** Connects the host to /api/mcp/admin, the operator approving `scope` when the server asks for sign-in. */
async function connect(host: TestHost, scope: string): Promise<Client> {
  const first = new StreamableHTTPClientTransport(adminUrl(), { authProvider: host });
  await expect(newClient().connect(first)).rejects.toThrow(UnauthorizedError);
  await first.finishAuth(await approve(host.authorizationUrl!, operator.key, scope));
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(adminUrl(), { authProvider: host }));
  return client;
}

function visibleWith(scopes: string[]) {
  return TOOLS.filter((t) => t.anonymous || scopes.includes(t.scope)).map((t) => t.name).sort();
}

const callTool = (token: string, name: string, body: unknown = {}) =>
  fetch(`${base}/api/v1/tools/${name}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

const tokenEndpoint = (params: Record<string, string>) =>
  fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });

describe('an MCP host identified by a client metadata document', () => {
  let host: TestHost;
  let client: Client;

  it('discovers the authorization server from the 401, gets the operator’s consent and sees exactly the approved tools', async () => {
    host = new TestHost(hostMetadata('Test Host'), `${cimd.origin}/host/client.json`);
    client = await connect(host, 'features:read features:write');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(visibleWith(['features:read', 'features:write']));
  });

  it('records the grant (client, operator key, scopes, resource) and attributes audited calls to it and its key', async () => {
    const result = await client.callTool({ name: 'features.set', arguments: { key: 'oauth_e2e', enabled: true } });
    expect(result.isError).toBeFalsy();
    const [grant] = await listGrants(database.db);
    expect(grant).toMatchObject({
      clientId: `${cimd.origin}/host/client.json`,
      clientName: 'Test Host',
      apiKeyId: operator.id,
      scopes: ['features:read', 'features:write'],
      resource: `${base}/api/mcp/admin`,
    });
    expect(grant.lastUsedAt).not.toBeNull();
    const entries = await database.db.auditEntry.findMany({ where: { grantId: grant.id }, orderBy: { at: 'asc' } });
    expect(entries.map((e) => [e.tool, e.apiKeyId])).toEqual([
      ['oauth.grant', operator.id],
      ['features.set', operator.id],
    ]);
  });

  it('steps up: a tool outside the grant answers 403 insufficient_scope, the operator approves more, the call then runs', async () => {
    const res = await fetch(adminUrl(), {
      method: 'POST',
      headers: { authorization: `Bearer ${host.tokens()!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pages.list', arguments: {} } }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer realm="agent-api", error="insufficient_scope", scope="pages:read", resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp/admin"`,
    );
    // An OAuth host is told to ask for the scope, never to create or use another key (docs/errors.md).
    const problem = (await res.json()) as { detail: string; resolution: string };
    expect(problem.detail).toBe('This grant lacks the scope pages:read required by pages.list.');
    expect(problem.resolution).toMatch(/^Sign in again requesting the scope pages:read/);
    expect(problem.resolution).not.toMatch(/key/i);

    host.authorizationUrl = undefined;
    await expect(client.callTool({ name: 'pages.list', arguments: {} })).rejects.toThrow(UnauthorizedError);
    expect(host.authorizationUrl!.searchParams.get('scope')!.split(' ')).toContain('pages:read');
    const stepped = new StreamableHTTPClientTransport(adminUrl(), { authProvider: host });
    await stepped.finishAuth(await approve(host.authorizationUrl!, operator.key, 'features:read features:write pages:read'));
    client = newClient();
    await client.connect(new StreamableHTTPClientTransport(adminUrl(), { authProvider: host }));
    const result = await client.callTool({ name: 'pages.list', arguments: {} });
    expect(result.isError).toBeFalsy();
  });

  it('rotates the refresh token on every use; reusing an old one ends the whole grant', async () => {
    const first = host.tokens()!;
    const clientId = host.clientInformation()!.client_id;
    const refreshed = await tokenEndpoint({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: clientId });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as { access_token: string; refresh_token: string; scope: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await callTool(second.access_token, 'features.list')).status).toBe(200);

    const reused = await tokenEndpoint({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: clientId });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    const afterReuse = await tokenEndpoint({ grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: clientId });
    expect(afterReuse.status).toBe(400);
    await sleep(REVOCATION_DELAY_MS);
    const revoked = await callTool(second.access_token, 'features.list');
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { resolution: string }).resolution).toMatch(/^The access token is expired, revoked or not ours: sign in again/);

    const grantId = (await database.db.oAuthGrant.findFirstOrThrow({ where: { scopes: { has: 'pages:read' } } })).id;
    expect((await database.db.oAuthGrant.findUniqueOrThrow({ where: { id: grantId } })).revokedAt).not.toBeNull();
    expect(await database.db.auditEntry.count({ where: { grantId, tool: 'oauth.revoke' } })).toBe(1);
  });
});

describe('an MCP host that registers itself dynamically', () => {
  let host: TestHost;

  it('registers, is named as unverified on the consent page, and works over REST with the same token', async () => {
    host = new TestHost(hostMetadata('Registered Host'));
    const client = await connect(host, 'catalog:read features:read');
    expect(host.clientInformation()!.client_id).not.toMatch(/^https:/);
    const token = host.tokens()!.access_token;
    expect((await callTool(token, 'features.list')).status).toBe(200);

    const refused = await callTool(token, 'features.set', { key: 'x', enabled: true });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer realm="agent-api", error="insufficient_scope", scope="features:write", resource_metadata="${base}/.well-known/oauth-protected-resource/api/v1"`,
    );
    const problem = (await refused.json()) as { detail: string; resolution: string };
    expect(problem.detail).toBe('This grant lacks the scope features:write required by features.set.');
    expect(problem.resolution).toMatch(/^Sign in again requesting the scope features:write/);
    await client.close();
  });

  it('ends with RFC 7009 revocation of its access token', async () => {
    const token = host.tokens()!.access_token;
    const res = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: host.clientInformation()!.client_id }),
    });
    expect(res.status).toBe(200);
    await sleep(REVOCATION_DELAY_MS);
    const after = await callTool(token, 'features.list');
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/api/v1"`);
  });
});

describe('ending access from the shop’s side', () => {
  it('revoking the grant stops its tokens within 1 s, and is audited', async () => {
    const host = new TestHost(hostMetadata('Host A'), `${cimd.origin}/a.json`);
    await connect(host, 'features:read');
    const token = host.tokens()!.access_token;
    expect((await callTool(token, 'features.list')).status).toBe(200);
    const grant = (await listGrants(database.db)).find((g) => g.clientId === `${cimd.origin}/a.json`)!;
    await revokeGrant(database.db, grant.id);
    await sleep(REVOCATION_DELAY_MS);
    expect((await callTool(token, 'features.list')).status).toBe(401);
    expect(await database.db.auditEntry.count({ where: { grantId: grant.id, tool: 'oauth.revoke' } })).toBe(1);
    expect((await listGrants(database.db)).some((g) => g.id === grant.id)).toBe(false);
  });

  it('revoking the operator’s API key stops every token it approved within 1 s', async () => {
    const other = await createKey(database.db, { name: 'second operator', scopes: ['features:read'] });
    const host = new TestHost(hostMetadata('Host B'), `${cimd.origin}/b.json`);
    const first = new StreamableHTTPClientTransport(adminUrl(), { authProvider: host });
    await expect(newClient().connect(first)).rejects.toThrow(UnauthorizedError);
    await first.finishAuth(await approve(host.authorizationUrl!, other.key, 'features:read'));
    const token = host.tokens()!.access_token;
    expect((await callTool(token, 'features.list')).status).toBe(200);
    await revokeKey(database.db, other.id);
    await sleep(REVOCATION_DELAY_MS);
    expect((await callTool(token, 'features.list')).status).toBe(401);
  });
});

describe('client metadata documents', () => {
  /** The authorization endpoint's answer for a client identified by the document at `path`. */
  async function authorizeAs(path: string, redirectUri = 'http://127.0.0.1:9/callback') {
    const url = new URL(`${base}/oauth/authorize`);
    const params = {
      response_type: 'code', client_id: `${cimd.origin}${path}`, redirect_uri: redirectUri, scope: 'features:read',
      resource: `${base}/api/mcp`, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return fetch(url, { redirect: 'manual' });
  }

  it('are cached as their Cache-Control says, and at least 5 minutes even when it says no-store', async () => {
    cimdFetches.length = 0;
    for (let i = 0; i < 2; i++) expect((await authorizeAs('/cached.json')).status).toBe(303);
    for (let i = 0; i < 2; i++) expect((await authorizeAs('/no-cache.json')).status).toBe(303);
    expect(cimdFetches).toEqual(['/cached.json', '/no-cache.json']);
  });

  it('are fetched once per client_id whatever the request rate: 20 concurrent and 20 sequential authorizations (no-store)', async () => {
    cimdFetches.length = 0;
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => authorizeAs('/burst.json')));
    expect(concurrent.map((r) => r.status)).toEqual(Array(20).fill(303));
    for (let i = 0; i < 20; i++) expect((await authorizeAs('/burst.json')).status).toBe(303);
    expect(cimdFetches).toEqual(['/burst.json']);
  });

  it('that failed to load are not fetched again for a while, however often they are asked for', async () => {
    cimdFetches.length = 0;
    const answers = await Promise.all(Array.from({ length: 10 }, () => authorizeAs('/missing.json')));
    for (let i = 0; i < 10; i++) answers.push(await authorizeAs('/missing.json'));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(400));
    expect(cimdFetches).toEqual(['/missing.json']);
  });

  it('must list the redirect URI exactly', async () => {
    const res = await authorizeAs('/exact.json', 'http://127.0.0.1:9/callback/other');
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('redirect_uri did not match any of the client');
  });

  it('are refused over 64 KB or when they name another client_id', async () => {
    for (const path of ['/huge.json', '/impostor.json']) {
      const res = await authorizeAs(path);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('invalid_client');
    }
  });
});
