// MCP over Streamable HTTP at /api/mcp (docs/agent-surfaces.md; docs/robustness.md rows 34–37), exercised
// with the SDK's own Client over real HTTP: tool lists per caller, calls through the same path as HTTP (scope,
// validation, confirm, dryRun, audit), failures as isError results with problem JSON, and the transport's guards.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey } from '../../src/auth/key-format.ts';
import { MCP_PROTOCOL_VERSIONS } from '../../src/mcp/create-mcp-server.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PROBLEM_KEYS } from '../helpers/problem.ts';

const ANONYMOUS = ['categories.list', 'products.get', 'products.search', 'site.get_page', 'site.list_pages'];

let t: TestApp;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  base = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t?.close();
});

async function connect(key?: string): Promise<Client> {
  const client = new Client({ name: 'agent-api-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
    requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : undefined,
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

/** The problem JSON an isError result carries in its text block. */
function problemOf(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  const r = result as CallToolResult;
  expect(r.isError, JSON.stringify(r)).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  const text = r.content[0];
  if (text?.type !== 'text') throw new Error('expected a text block');
  const problem = JSON.parse(text.text) as Record<string, unknown>;
  expect(Object.keys(problem).sort()).toEqual(PROBLEM_KEYS);
  expect(problem.instance).toMatch(/^\/api\/mcp#req-[0-9a-f]+$/);
  return problem;
}

/** A raw JSON-RPC POST, for what the SDK client would never send. */
function rawPost(headers: Record<string, string>, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) {
  return fetch(`${base}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

type JsonRpcReply = { result: { tools: { name: string }[] }; error: { code: number; message: string } };
const jsonOf = async <T = Record<string, unknown>>(res: Response) => (await res.json()) as T;

const validProduct = (slug: string) => ({ name: 'MCP Aviator', slug, description: 'Created through the MCP endpoint.', priceDkk: 99_900, stock: 3 });

describe('tools/list', () => {
  it('shows anonymous clients exactly the five public tools', async () => {
    expect(await names(await connect())).toEqual(ANONYMOUS);
  });

  it('shows a key the public tools plus exactly those of its scopes', async () => {
    const listed = await names(await connect(await t.key(['products:write'])));
    expect(listed).toContain('products.create');
    expect(listed).toContain('products.delete');
    expect(listed.some((n) => n.startsWith('orders.'))).toBe(false);
    const expected = TOOLS.filter((tool) => tool.anonymous || tool.scope === 'products:write').map((tool) => tool.name).sort();
    expect(listed).toEqual(expected);
  });

  it('shows a key with every scope every tool', async () => {
    expect(await names(await connect(await t.key(SCOPES)))).toEqual(TOOLS.map((tool) => tool.name).sort());
  });

  it('publishes each tool with the registry’s title, description, schemas and annotations', async () => {
    const { tools } = await (await connect(await t.key(SCOPES))).listTools();
    for (const tool of TOOLS) {
      const listed = tools.find((l) => l.name === tool.name)!;
      expect(listed.title).toBe(tool.title);
      expect(listed.description).toContain(tool.description);
      expect(listed.annotations).toEqual({ title: tool.title, ...tool.annotations });
      expect(listed.inputSchema).toEqual(z.toJSONSchema(tool.input, { io: 'input' }));
      expect(listed.outputSchema?.type).toBe('object');
      expect(listed.outputSchema?.required).toEqual(['ok', 'result']);
    }
    const create = tools.find((l) => l.name === 'products.create')!;
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['name', 'slug', 'description', 'priceDkk', 'stock']));
    expect(create.inputSchema.additionalProperties).toBe(false);
  });
});

describe('tools/call', () => {
  it('runs an anonymous read and returns the HTTP body as structuredContent', async () => {
    const client = await connect();
    const result = (await client.callTool({ name: 'categories.list', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ ok: true, result: expect.any(Array) });
    const text = result.content[0];
    expect(text?.type === 'text' && JSON.parse(text.text)).toEqual(result.structuredContent);
    const http = await t.call('categories.list', {});
    expect(result.structuredContent).toEqual(http.json());
  });

  it('treats omitted arguments as {}', async () => {
    const result = (await (await connect()).callTool({ name: 'site.list_pages' })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ok: true });
  });

  it('refuses a write without a key with the unauthorized problem', async () => {
    const before = await t.db.product.count();
    const problem = problemOf(await (await connect()).callTool({ name: 'products.create', arguments: validProduct('mcp-anon') }));
    expect(problem).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(problem.resolution).toEqual(expect.any(String));
    expect(await t.db.product.count()).toBe(before);
  });

  it('refuses a tool outside the key’s scopes with insufficient_scope', async () => {
    const client = await connect(await t.key(['catalog:read']));
    const problem = problemOf(await client.callTool({ name: 'categories.upsert', arguments: { slug: 'x-mcp', name: 'X MCP' } }));
    expect(problem).toMatchObject({ code: 'insufficient_scope', status: 403 });
  });

  it('reports bad argument types as invalid_request, the same code as HTTP', async () => {
    const args = { limit: 'ten', q: 42 };
    const problem = problemOf(await (await connect()).callTool({ name: 'products.search', arguments: args }));
    expect(problem).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(problem.detail).toMatch(/limit/);
    const http = await t.call('products.search', args);
    expect(http.json().code).toBe(problem.code);
  });

  it('rejects unknown fields and a missing confirm exactly like HTTP', async () => {
    const client = await connect(await t.key(['products:write']));
    const unknown = problemOf(await client.callTool({ name: 'products.search', arguments: { q: 'x', extra: 1 } }));
    expect(unknown).toMatchObject({ code: 'invalid_request' });
    const noConfirm = problemOf(await client.callTool({ name: 'products.delete', arguments: { slug: 'whatever' } }));
    expect(noConfirm).toMatchObject({ code: 'confirmation_required', status: 422 });
  });

  it('writes the row and its audit entry when products.create is called with a key', async () => {
    const key = await t.key(['products:write']);
    const client = await connect(key);
    const result = (await client.callTool({ name: 'products.create', arguments: validProduct('mcp-created') })) as CallToolResult;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const { id } = (result.structuredContent as { result: { id: string } }).result;
    expect(result.structuredContent).toEqual({ ok: true, result: { id, slug: 'mcp-created' } });

    const row = await t.db.product.findUniqueOrThrow({ where: { slug: 'mcp-created' } });
    expect(row).toMatchObject({ id, name: 'MCP Aviator', priceDkk: 99_900n });
    const audit = await t.db.auditEntry.findMany({ where: { entityId: id } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ tool: 'products.create', entityType: 'product', apiKeyId: parseKey(key)!.id });
  });

  it('previews a write with dryRun and changes nothing', async () => {
    const client = await connect(await t.key(['products:write']));
    const auditBefore = await t.db.auditEntry.count();
    const result = (await client.callTool({ name: 'products.create', arguments: { ...validProduct('mcp-dry'), dryRun: true } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ok: true, dryRun: true, changes: [expect.objectContaining({ entityType: 'product' })] });
    expect(await t.db.product.findUnique({ where: { slug: 'mcp-dry' } })).toBeNull();
    expect(await t.db.auditEntry.count()).toBe(auditBefore);
  });

  it('answers an unknown tool with a JSON-RPC invalid-params error carrying the problem', async () => {
    await expect((await connect()).callTool({ name: 'no.such_tool', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ code: 'unknown_tool' }),
    });
  });
});

describe('HTTP level', () => {
  it('answers an invalid key with 401 and a WWW-Authenticate pointing at the resource metadata', async () => {
    const res = await rawPost({ authorization: 'Bearer aak_not-a-real-key' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await jsonOf(res)).code).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/api\/mcp"/);
  });

  it('publishes RFC 9728 protected-resource metadata', async () => {
    const res = await fetch(`${base}/.well-known/oauth-protected-resource/api/mcp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      resource: `${base}/api/mcp`,
      bearer_methods_supported: ['header'],
      scopes_supported: [...SCOPES],
    });
  });

  it('rejects a foreign Origin with 403 and a JSON-RPC error', async () => {
    const res = await rawPost({ origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden origin' }, id: null });
    expect((await rawPost({ origin: 'null' })).status).toBe(403);
  });

  it('accepts the service’s own origin', async () => {
    const res = await rawPost({ origin: base });
    expect(res.status).toBe(200);
    expect((await jsonOf<JsonRpcReply>(res)).result.tools.map((tool) => tool.name).sort()).toEqual(ANONYMOUS);
  });

  it('rejects an unsupported MCP-Protocol-Version with 400 and accepts a supported one', async () => {
    const bad = await rawPost({ 'mcp-protocol-version': '1999-01-01' });
    expect(bad.status).toBe(400);
    expect((await jsonOf<JsonRpcReply>(bad)).error.code).toBe(-32000);
    expect((await rawPost({ 'mcp-protocol-version': MCP_PROTOCOL_VERSIONS[0] })).status).toBe(200);
  });

  it('answers GET and DELETE with 405 (stateless, no SSE stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/api/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('counts MCP requests against the rate limits and says so in the headers', async () => {
    const res = await rawPost({});
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"anon";q=\d+;w=\d+$/);
    expect(res.headers.get('ratelimit')).toMatch(/^"anon";r=\d+;t=\d+$/);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]+$/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });
});

describe('POST framing (the Streamable HTTP rules the route applies itself)', () => {
  const initialize = (id: number) => ({
    jsonrpc: '2.0', id, method: 'initialize',
    params: { protocolVersion: MCP_PROTOCOL_VERSIONS[0], capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  it('answers initialize with the negotiated version, the server info and no session id', async () => {
    const res = await rawPost({}, initialize(7));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = await jsonOf<{ id: number; result: { protocolVersion: string; serverInfo: { name: string }; capabilities: object } }>(res);
    expect(body.id).toBe(7);
    expect(body.result.protocolVersion).toBe(MCP_PROTOCOL_VERSIONS[0]);
    expect(body.result.serverInfo.name).toBe('agent-api');
    expect(body.result.capabilities).toEqual({ tools: { listChanged: false } });
  });

  it('refuses a client that does not accept both JSON and SSE with 406', async () => {
    const res = await rawPost({ accept: 'application/json' });
    expect(res.status).toBe(406);
    expect((await jsonOf<JsonRpcReply>(res)).error.code).toBe(-32000);
  });

  it('answers a body that is JSON but not JSON-RPC with 400 and -32700, running nothing', async () => {
    for (const body of [{ hello: 'world' }, { jsonrpc: '1.0', id: 1, method: 'tools/list' }, [{ hello: 'world' }], 'x']) {
      const res = await rawPost({}, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await jsonOf<JsonRpcReply>(res)).error.code).toBe(-32700);
    }
  });

  it('answers notifications alone with 202 and no body', async () => {
    const res = await rawPost({}, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('answers a batch with an array of the requests’ responses, in request order, skipping notifications', async () => {
    const res = await rawPost({}, [
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'categories.list', arguments: {} } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'c', method: 'no/such/method' },
    ]);
    expect(res.status).toBe(200);
    const body = await jsonOf<{ id: string; result?: { structuredContent?: { ok: boolean } }; error?: { code: number } }[]>(res);
    expect(body.map((m) => m.id)).toEqual(['b', 'a', 'c']);
    expect(body[0]?.result?.structuredContent?.ok).toBe(true);
    expect(body[1]?.result).toEqual({});
    expect(body[2]?.error?.code).toBe(-32601);
  });

  it('refuses an initialize request batched with others, an empty batch and one over 100 messages, with 400 and -32600', async () => {
    const mixed = await rawPost({}, [initialize(1), { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(mixed.status).toBe(400);
    expect((await jsonOf<JsonRpcReply>(mixed)).error.code).toBe(-32600);
    for (const batch of [[], Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }))]) {
      const res = await rawPost({}, batch);
      expect(res.status, `${batch.length} messages`).toBe(400);
      expect((await jsonOf<JsonRpcReply>(res)).error.code).toBe(-32600);
    }
  });
});

describe('Origin allow-list from configuration', () => {
  it('accepts ALLOWED_ORIGINS and PUBLIC_BASE_URL (normalised: case, default port), and still refuses others', async () => {
    const configured = await createTestApp({ env: { ALLOWED_ORIGINS: 'https://Agent.Example:443, http://tools.example:8080', PUBLIC_BASE_URL: 'https://shop.example/' } });
    try {
      const post = (origin: string) =>
        configured.app.inject({
          method: 'POST',
          url: '/api/mcp',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin },
          payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
        });
      for (const origin of ['https://agent.example', 'http://tools.example:8080', 'https://shop.example']) {
        expect((await post(origin)).statusCode, origin).toBe(200);
      }
      for (const origin of ['http://agent.example', 'http://tools.example', 'https://shop.example.evil.example']) {
        expect((await post(origin)).statusCode, origin).toBe(403);
      }
    } finally {
      await configured.close();
    }
  });
});
