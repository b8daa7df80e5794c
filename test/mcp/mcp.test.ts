// MCP at /api/mcp in both eras (docs/agent-surfaces.md; docs/robustness.md rows 34–37): 2026-07-28 per request and the
// 2025 revisions stateless, exercised with the SDK's own v2 Client over real HTTP: tool lists per caller, calls through
// the same path as HTTP (scope, validation, confirm, dryRun, audit), failures as isError results with problem JSON,
// human approval of destructive calls, and the transport's guards.
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseKey } from '../../src/auth/key-format.ts';
import { MCP_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from '../../src/mcp/create-mcp-server.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { PROTOCOL_TOOLS, TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PROBLEM_KEYS } from '../helpers/problem.ts';
import { obtainTokens, registerClient } from '../oauth/mcp-host.ts';

// The registry says which tools are anonymous; test/docs checks that set against docs/contract.md.
const ANONYMOUS = TOOLS.filter((tool) => tool.anonymous).map((tool) => tool.name).sort();
const ERAS = ['2026-07-28', 'legacy'] as const;
type Era = (typeof ERAS)[number];

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

type Answer = { action: 'accept'; content: { approve: boolean } } | { action: 'decline' };

/** A v2 SDK client: pinned to 2026-07-28 or on the 2025 handshake; `answer` makes it a host that can show forms. */
async function connect(era: Era, key?: string, opts: { answer?: (message: string) => Answer; path?: string } = {}): Promise<Client> {
  const client = new Client(
    { name: 'agent-api-test', version: '1.0.0' },
    {
      ...(era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } }),
      ...(opts.answer ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (opts.answer) {
    const answer = opts.answer;
    client.setRequestHandler('elicitation/create', (request) => answer(request.params.message));
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${opts.path ?? '/api/mcp'}`), {
    requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : undefined,
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

/** The problem JSON an isError result carries in its text block. */
function problemOf(result: CallToolResult): Record<string, unknown> {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = result.content[0];
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

/** A 2026-07-28 request as a client builds it: the envelope in `_meta`, the standard headers. */
function modernPost(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, version = MODERN_PROTOCOL_VERSION) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return rawPost(
    { 'mcp-protocol-version': version, 'mcp-method': method, ...name, ...headers },
    {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
  );
}

type JsonRpcReply = { result: Record<string, unknown> & { tools: { name: string }[] }; error: { code: number; message: string; data?: unknown } };
const jsonOf = async <T = JsonRpcReply>(res: Response) => (await res.json()) as T;

const validProduct = (slug: string) => ({ name: 'MCP Aviator', slug, description: 'Created through the MCP endpoint.', priceDkk: 99_900, stock: 3 });

describe.each(ERAS)('era %s', (era) => {
  describe('tools/list', () => {
    it('shows anonymous clients exactly the five public tools, in name order', async () => {
      expect(await names(await connect(era))).toEqual(ANONYMOUS);
    });

    it('shows a key the public tools plus exactly those of its scopes', async () => {
      const listed = await names(await connect(era, await t.key(['products:write'])));
      const expected = TOOLS.filter((tool) => tool.anonymous || tool.scope === 'products:write').map((tool) => tool.name).sort();
      expect(listed).toEqual(expected);
    });

    it('shows a key with every scope every tool, each with title, description, object schemas and annotations', async () => {
      const { tools } = await (await connect(era, await t.key(SCOPES))).listTools();
      // Every tool of the registry, and (the key holds checkout:agent too) the UCP binding's (docs/agentic-checkout.md).
      expect(tools.map((l) => l.name)).toEqual([...TOOLS, ...PROTOCOL_TOOLS].map((tool) => tool.name).sort());
      for (const tool of TOOLS) {
        const listed = tools.find((l) => l.name === tool.name)!;
        expect(listed.title).toBe(tool.title);
        expect(listed.description).toContain(tool.description);
        expect(listed.annotations?.readOnlyHint ?? false).toBe(tool.annotations.readOnlyHint);
        if (!tool.annotations.readOnlyHint) expect(listed.annotations?.destructiveHint).toBe(tool.annotations.destructiveHint);
        expect(listed.inputSchema.type).toBe('object');
        expect(listed.outputSchema?.type).toBe('object');
        expect(listed.outputSchema?.required).toEqual(['ok', 'result']);
      }
      const create = tools.find((l) => l.name === 'products.create')!;
      expect(create.inputSchema.required).toEqual(expect.arrayContaining(['name', 'slug', 'description', 'priceDkk', 'stock']));
      expect(create.inputSchema.additionalProperties).toBe(false);
    });
  });

  describe('tools/call', () => {
    it('runs an anonymous read and returns the HTTP body as structuredContent plus its text copy', async () => {
      const result = await (await connect(era)).callTool({ name: 'categories.list', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ ok: true, result: expect.any(Array) });
      const text = result.content[0];
      expect(text?.type === 'text' && JSON.parse(text.text)).toEqual(result.structuredContent);
      expect(result.structuredContent).toEqual((await t.call('categories.list', {})).json());
    });

    it('treats omitted arguments as {}', async () => {
      const result = await (await connect(era)).callTool({ name: 'site.list_pages' });
      expect(result.structuredContent).toMatchObject({ ok: true });
    });

    it('refuses a write without a key with the unauthorized problem, changing nothing', async () => {
      const before = await t.db.product.count();
      const problem = problemOf(await (await connect(era)).callTool({ name: 'products.create', arguments: validProduct(`mcp-anon-${era}`) }));
      expect(problem).toMatchObject({ code: 'unauthorized', status: 401 });
      expect(await t.db.product.count()).toBe(before);
    });

    it('refuses a tool outside the key’s scopes with insufficient_scope', async () => {
      const client = await connect(era, await t.key(['catalog:read']));
      const problem = problemOf(await client.callTool({ name: 'categories.upsert', arguments: { slug: 'x-mcp', name: 'X MCP' } }));
      expect(problem).toMatchObject({ code: 'insufficient_scope', status: 403 });
    });

    it('reports bad argument types as invalid_request, the same code as HTTP', async () => {
      const args = { limit: 'ten', q: 42 };
      const problem = problemOf(await (await connect(era)).callTool({ name: 'products.search', arguments: args }));
      expect(problem).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(problem.detail).toMatch(/limit/);
      expect((await t.call('products.search', args)).json().code).toBe(problem.code);
    });

    it('writes the row and its audit entry when products.create is called with a key', async () => {
      const key = await t.key(['products:write']);
      const slug = `mcp-created-${era === 'legacy' ? 'l' : 'm'}`;
      const result = await (await connect(era, key)).callTool({ name: 'products.create', arguments: validProduct(slug) });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      const { id } = (result.structuredContent as { result: { id: string } }).result;
      expect(result.structuredContent).toEqual({ ok: true, result: { id, slug } });
      const audit = await t.db.auditEntry.findMany({ where: { entityId: id } });
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ tool: 'products.create', entityType: 'product', apiKeyId: parseKey(key)!.id });
    });

    it('previews a write with dryRun and changes nothing', async () => {
      const client = await connect(era, await t.key(['products:write']));
      const auditBefore = await t.db.auditEntry.count();
      const result = await client.callTool({ name: 'products.create', arguments: { ...validProduct(`mcp-dry-${era}`), dryRun: true } });
      expect(result.structuredContent).toMatchObject({ ok: true, dryRun: true, changes: [expect.objectContaining({ entityType: 'product' })] });
      expect(await t.db.product.findUnique({ where: { slug: `mcp-dry-${era}` } })).toBeNull();
      expect(await t.db.auditEntry.count()).toBe(auditBefore);
    });

    it('answers an unknown tool with one JSON-RPC -32602 error carrying the problem, its message not prefixed twice', async () => {
      const error = await (await connect(era)).callTool({ name: 'no.such_tool', arguments: {} }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: -32602, data: expect.objectContaining({ code: 'unknown_tool' }) });
      expect((error as Error).message.match(/-32602/g)?.length ?? 0).toBeLessThanOrEqual(1);
      expect((error as Error).message).toContain('There is no tool named "no.such_tool"');
    });

    it('asks for "confirm": true from a client that cannot show an approval form, exactly like REST', async () => {
      const client = await connect(era, await t.key(['products:write']));
      const problem = problemOf(await client.callTool({ name: 'products.delete', arguments: { slug: 'whatever' } }));
      expect(problem).toMatchObject({ code: 'confirmation_required', status: 422 });
    });
  });
});

describe('2026-07-28 on the wire', () => {
  it('answers server/discover with the supported versions, capabilities and server info, and resultType', async () => {
    const res = await modernPost('server/discover');
    expect(res.status).toBe(200);
    const { result } = await jsonOf(res);
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN_PROTOCOL_VERSION],
      capabilities: { tools: { listChanged: false } },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'agent-api', version: '1.0.0' } },
    });
  });

  it('marks the anonymous tool list public and a key’s list private, with a TTL', async () => {
    const anonymous = (await jsonOf(await modernPost('tools/list'))).result;
    expect(anonymous).toMatchObject({ resultType: 'complete', cacheScope: 'public', ttlMs: 300_000 });
    const keyed = (await jsonOf(await modernPost('tools/list', {}, { authorization: `Bearer ${await t.key(['catalog:read'])}` }))).result;
    expect(keyed).toMatchObject({ cacheScope: 'private', ttlMs: 300_000 });
    expect(JSON.stringify(anonymous.tools)).toBe(JSON.stringify((await jsonOf(await modernPost('tools/list'))).result.tools));
  });

  it('refuses Mcp-Method / Mcp-Name that disagree with the body: HTTP 400, -32020', async () => {
    const method = await modernPost('tools/list', {}, { 'mcp-method': 'tools/call' });
    expect(method.status).toBe(400);
    expect((await jsonOf(method)).error.code).toBe(-32020);
    const name = await modernPost('tools/call', { name: 'categories.list', arguments: {} }, { 'mcp-name': 'products.search' });
    expect(name.status).toBe(400);
    expect((await jsonOf(name)).error.code).toBe(-32020);
  });

  it('refuses an unsupported version with HTTP 400, -32022, the supported list and the request’s id', async () => {
    // A 2025-era request names every revision served; a 2026-07-28 one those server/discover names.
    const legacy = await rawPost({ 'mcp-protocol-version': '1999-01-01' });
    const modern = await modernPost('tools/list', {}, {}, '2099-01-01');
    for (const [res, supported] of [[legacy, MCP_PROTOCOL_VERSIONS], [modern, [MODERN_PROTOCOL_VERSION]]] as const) {
      expect(res.status).toBe(400);
      const reply = await jsonOf<JsonRpcReply & { id: unknown }>(res);
      expect(reply.id).toBe(1);
      expect(reply.error.code).toBe(-32022);
      expect(reply.error.data).toMatchObject({ supported });
    }
  });

  it('sends no notifications/message and answers JSON when no log level was asked for', async () => {
    const res = await modernPost('tools/call', { name: 'categories.list', arguments: {} });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.text();
    expect(body).not.toContain('notifications/message');
    expect(JSON.parse(body).result).toMatchObject({ resultType: 'complete', structuredContent: { ok: true } });
  });
});

describe('human approval of destructive calls (2026-07-28)', () => {
  async function product(slug: string) {
    const key = await t.key(['products:write']);
    const created = await t.call('products.create', { ...validProduct(slug), name: `Aviator ${slug}`, stock: 12 }, key);
    expect(created.statusCode).toBe(200);
    return key;
  }
  const live = (slug: string) => t.db.product.findFirst({ where: { slug, deletedAt: null } });

  it('shows the preview in words, and runs the call once when the person approves', async () => {
    const key = await product('approve-me');
    const asked: string[] = [];
    const client = await connect('2026-07-28', key, { answer: (message) => (asked.push(message), { action: 'accept', content: { approve: true } }) });
    const auditBefore = await t.db.auditEntry.count({ where: { tool: 'products.delete' } });
    const result = await client.callTool({ name: 'products.delete', arguments: { slug: 'approve-me' } });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ok: true });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Delete product Aviator approve-me \(stock 12\)/);
    expect(asked[0]).toContain('Approve this change?');
    expect(await live('approve-me')).toBeNull();
    expect(await t.db.auditEntry.count({ where: { tool: 'products.delete' } })).toBe(auditBefore + 1);
  });

  it('changes nothing and answers confirmation_declined when the person declines', async () => {
    const key = await product('decline-me');
    const client = await connect('2026-07-28', key, { answer: () => ({ action: 'decline' }) });
    const problem = problemOf(await client.callTool({ name: 'products.delete', arguments: { slug: 'decline-me' } }));
    expect(problem).toMatchObject({ code: 'confirmation_declined', status: 422 });
    expect(await live('decline-me')).not.toBeNull();
  });

  describe('a requestState that is not the one minted for this call is refused, changing nothing', () => {
    /** The first round over the wire: the input_required result with its requestState. */
    const withElicitation = (key: string, slug: string, requestState: string, args: Record<string, unknown> = { slug }, meta: Record<string, unknown> = {}) =>
      rawPost(
        { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'products.delete', authorization: `Bearer ${key}` },
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: {
            name: 'products.delete',
            arguments: args,
            inputResponses: { approval: { action: 'accept', content: { approve: true } } },
            requestState,
            _meta: {
              ...meta,
              'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
            },
          },
        },
      ).then(jsonOf);

    async function firstRound(slug: string, caller?: string) {
      const operatorKey = await product(slug);
      const key = caller ?? operatorKey;
      const asked = (await rawPost(
        { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'products.delete', authorization: `Bearer ${key}` },
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'products.delete',
            arguments: { slug },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
            },
          },
        },
      ).then((res) => jsonOf<{ result: { resultType: string; requestState: string; inputRequests: Record<string, unknown> } }>(res))).result;
      expect(asked.resultType).toBe('input_required');
      expect(Object.values(asked.inputRequests)).toEqual([expect.objectContaining({ method: 'elicitation/create', params: expect.objectContaining({ mode: 'form' }) })]);
      return { key, state: asked.requestState };
    }

    it('tampered', async () => {
      const { key, state } = await firstRound('tampered');
      const flipped = `${state.slice(0, -2)}${state.endsWith('A') ? 'B' : 'A'}${state.slice(-1)}`;
      const reply = await withElicitation(key, 'tampered', flipped);
      expect(reply.error.code).toBe(-32602);
      expect(await live('tampered')).not.toBeNull();
    });

    it('expired (older than 5 minutes)', async () => {
      const { key, state } = await firstRound('expired');
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 5 * 60_000 + 1_000);
        const reply = await withElicitation(key, 'expired', state);
        expect(reply.error.code).toBe(-32602);
      } finally {
        vi.useRealTimers();
      }
      expect(await live('expired')).not.toBeNull();
    });

    it('another key', async () => {
      const { state } = await firstRound('other-key');
      const reply = await withElicitation(await t.key(['products:write']), 'other-key', state);
      expect(reply.error.code).toBe(-32602);
      expect(await live('other-key')).not.toBeNull();
    });

    it('other arguments', async () => {
      const { key, state } = await firstRound('other-args');
      await product('other-args-2');
      const reply = await withElicitation(key, 'other-args-2', state, { slug: 'other-args-2' });
      expect(reply.error.code).toBe(-32602);
      expect(await live('other-args')).not.toBeNull();
      expect(await live('other-args-2')).not.toBeNull();
    });

    it('the approved one, replayed, runs once', async () => {
      const { key, state } = await firstRound('replayed');
      const first = await withElicitation(key, 'replayed', state);
      expect(first.result).toMatchObject({ resultType: 'complete', structuredContent: { ok: true } });
      const again = await withElicitation(key, 'replayed', state);
      expect(again.result).toMatchObject({ structuredContent: first.result.structuredContent, _meta: { idempotentReplayed: true } });
      const { id } = await t.db.product.findFirstOrThrow({ where: { slug: 'replayed' } });
      expect(await t.db.auditEntry.count({ where: { tool: 'products.delete', entityId: id } })).toBe(1);
    });

    it('the approved one, replayed with another idempotency key, runs nothing; with the same key it answers the recorded result', async () => {
      const { key, state } = await firstRound('replay-other-key');
      const first = await withElicitation(key, 'replay-other-key', state, undefined, { idempotencyKey: 'approval-first' });
      expect(first.result).toMatchObject({ resultType: 'complete', structuredContent: { ok: true } });
      // The product comes back (someone restores it): a second run of the approved delete would delete it again.
      const { id } = await t.db.product.update({ where: { slug: 'replay-other-key' }, data: { deletedAt: null } });
      for (const idempotencyKey of ['approval-second', undefined]) {
        const again = await withElicitation(key, 'replay-other-key', state, undefined, idempotencyKey ? { idempotencyKey } : {});
        expect(again.error).toMatchObject({ code: -32602, data: { reason: 'request_state_used' } });
        expect(again.error.message).toMatch(/already used/);
      }
      const same = await withElicitation(key, 'replay-other-key', state, undefined, { idempotencyKey: 'approval-first' });
      expect(same.result).toMatchObject({ structuredContent: first.result.structuredContent, _meta: { idempotentReplayed: true } });
      expect(await live('replay-other-key')).not.toBeNull();
      expect(await t.db.auditEntry.count({ where: { tool: 'products.delete', entityId: id } })).toBe(1);
    });

    it('the approved one, used twice at once with different idempotency keys, runs once', async () => {
      const { key, state } = await firstRound('replay-racing');
      const replies = await Promise.all(
        ['race-a', 'race-b', 'race-c'].map((idempotencyKey) => withElicitation(key, 'replay-racing', state, undefined, { idempotencyKey })),
      );
      expect(replies.filter((r) => r.result?.structuredContent)).toHaveLength(1);
      expect(replies.filter((r) => r.error?.code === -32602)).toHaveLength(2);
      const { id } = await t.db.product.findFirstOrThrow({ where: { slug: 'replay-racing' } });
      expect(await t.db.auditEntry.count({ where: { tool: 'products.delete', entityId: id } })).toBe(1);
    });

    it('another OAuth grant of the same key', async () => {
      const operatorKey = await t.key(['products:write']);
      const clientId = await registerClient(base);
      const grant = () => obtainTokens(base, { clientId, operatorKey, resource: `${base}/api/mcp`, scope: 'products:write' });
      const [a, b] = [(await grant()).access_token, (await grant()).access_token];
      const { state } = await firstRound('other-grant', a);
      const reply = await withElicitation(b, 'other-grant', state);
      expect(reply.error.code).toBe(-32602);
      expect(await live('other-grant')).not.toBeNull();
      // The grant that was asked may use it.
      const approved = await withElicitation(a, 'other-grant', state);
      expect(approved.result).toMatchObject({ structuredContent: { ok: true } });
      expect(await live('other-grant')).toBeNull();
    });
  });

  it('keeps "confirm": true working on 2026-07-28 and on the 2025 revisions', async () => {
    for (const era of ERAS) {
      const slug = `confirmed-${era === 'legacy' ? 'l' : 'm'}`;
      const key = await product(slug);
      const result = await (await connect(era, key, { answer: () => ({ action: 'decline' }) })).callTool({ name: 'products.delete', arguments: { slug, confirm: true } });
      expect(result.structuredContent).toMatchObject({ ok: true });
      expect(await live(slug)).toBeNull();
    }
  });
});

describe('lean toolset: /api/mcp?toolset=discovery', () => {
  it('lists three meta-tools that find, describe and call the caller’s tools through the same path', async () => {
    const key = await t.key(['catalog:read']);
    const client = await connect('2026-07-28', key, { path: '/api/mcp?toolset=discovery' });
    expect(await names(client)).toEqual(['tools.find', 'tools.describe', 'tools.call']);
    const found = await client.callTool({ name: 'tools.find', arguments: { query: 'categories' } });
    const foundNames = (found.structuredContent as { result: { name: string }[] }).result.map((r) => r.name);
    expect(foundNames).toContain('categories.list');
    expect(foundNames).not.toContain('categories.upsert');
    const described = await client.callTool({ name: 'tools.describe', arguments: { name: 'products.search' } });
    expect(described.structuredContent).toMatchObject({ ok: true, result: { name: 'products.search', inputSchema: { type: 'object' } } });
    const called = await client.callTool({ name: 'tools.call', arguments: { name: 'categories.list', arguments: {} } });
    expect(called.structuredContent).toEqual((await t.call('categories.list', {})).json());
    const refused = problemOf(await client.callTool({ name: 'tools.call', arguments: { name: 'categories.upsert', arguments: { slug: 'x', name: 'X' } } }));
    expect(refused).toMatchObject({ code: 'insufficient_scope' });
  });
});

describe('HTTP level', () => {
  it('answers an invalid key with 401 and a WWW-Authenticate pointing at the resource metadata', async () => {
    const res = await rawPost({ authorization: 'Bearer aak_not-a-real-key' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await jsonOf<Record<string, unknown>>(res)).code).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/api\/mcp"/);
  });

  it('publishes RFC 9728 protected-resource metadata', async () => {
    const res = await fetch(`${base}/.well-known/oauth-protected-resource/api/mcp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ resource: `${base}/api/mcp`, bearer_methods_supported: ['header'], scopes_supported: [...SCOPES] });
  });

  it('rejects a foreign Origin with 403 and a JSON-RPC error', async () => {
    const res = await rawPost({ origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden origin' }, id: null });
    expect((await rawPost({ origin: 'null' })).status).toBe(403);
  });

  it('accepts the service’s own origin and every supported protocol version header', async () => {
    expect((await rawPost({ origin: base })).status).toBe(200);
    for (const version of MCP_PROTOCOL_VERSIONS.filter((v) => v !== MODERN_PROTOCOL_VERSION)) {
      expect((await rawPost({ 'mcp-protocol-version': version })).status, version).toBe(200);
    }
  });

  it('answers GET and DELETE with 405 (stateless, no SSE stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/api/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('counts MCP requests against the rate limits and says so in the headers, with no session id', async () => {
    const res = await rawPost({});
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"anon";q=\d+;w=\d+$/);
    expect(res.headers.get('ratelimit')).toMatch(/^"anon";r=\d+;t=\d+$/);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]+$/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
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
