// An MCP host signs in with OAuth against a running server, with the SDK's own client-side OAuth provider:
// discovery from the 401, a client metadata document, consent through the form contract, scopes, step-up,
// refresh rotation and reuse, revocation, and tokens refused outside this service.
import type { Server } from 'node:https';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startServerProcess, type ServerProcess } from '../helpers/processes.ts';
import { approve, hostMetadata, startHttpsServer, TestHost } from './mcp-host.ts';

let database: TestDatabase;
let server: ServerProcess;
let base: string;
let cimd: { server: Server; origin: string; caFile: string };
let operatorKey: string;

beforeAll(async () => {
  database = await createTestDatabase();
  cimd = await startHttpsServer((req, res) => {
    const clientId = `${cimd.origin}${req.url}`;
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(JSON.stringify({ client_id: clientId, ...hostMetadata('Test <b>Host</b>') }));
  });
  server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], {
    DATABASE_URL: database.url,
    OUTBOUND_ALLOW_PRIVATE: '1',
    NODE_EXTRA_CA_CERTS: cimd.caFile,
    RATE_LIMIT_ANON_MAX: '100000',
    RATE_LIMIT_PREAUTH_MAX: '100000',
    RATE_LIMIT_AUTH_MAX: '100000',
  });
  base = `http://127.0.0.1:${server.port}`;
  operatorKey = (await createKey(database.db, { name: 'operator', scopes: [...SCOPES] })).key;
}, 90_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  cimd?.server.close();
  await database?.drop();
});

/** Connects the host to /api/mcp/admin, approving `scope` when the server asks for sign-in. */
async function connect(host: TestHost, scope: string): Promise<Client> {
  const url = new URL(`${base}/api/mcp/admin`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: host });
  await expect(new Client({ name: 'test-host', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
  const callback = await approve(host.authorizationUrl!, operatorKey, scope);
  await first.finishAuth(callback);
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: host }));
  return client;
}

function visibleWith(scopes: string[]) {
  return TOOLS.filter((t) => t.anonymous || scopes.includes(t.scope)).map((t) => t.name).sort();
}

describe('an MCP host with a client metadata document', () => {
  it('discovers the authorization server from the 401, gets the operator’s consent and sees exactly the approved tools', async () => {
    const host = new TestHost(hostMetadata('Test Host'), `${cimd.origin}/host/client.json`);
    const client = await connect(host, 'catalog:read products:write');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(visibleWith(['catalog:read', 'products:write']));
    await client.close();
  });
});
