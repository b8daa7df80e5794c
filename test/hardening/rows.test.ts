// docs/robustness.md as a table: one test per row (1–40), named after it. Rows that another suite proves in depth
// (test/http/*, test/mcp/*, test/registry/idempotency.test.ts, test/tools/*) get a compact check here that still
// exercises the real service. Rows 3–16 also run over MCP (/api/mcp, SDK Client on a real socket, or raw JSON-RPC
// where the SDK client would never send the bytes) and must yield the same problem `code` as REST (row 37).
// The faults of row 32 in depth (PostgreSQL stopped and restarted) are in database-down.test.ts; SIGTERM under load
// is in sigterm.test.ts.
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createKey, revokeKey } from '../../src/auth/key-admin.ts';
import { generateKey, generateKeyId } from '../../src/auth/key-format.ts';
import { loadConfig } from '../../src/config.ts';
import { createDb } from '../../src/db/client.ts';
import { classifyUnknown, PROBLEMS } from '../../src/errors.ts';
import { defineTool } from '../../src/registry/define-tool.ts';
import type { Scope } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { concurrently, sleep } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createCart, makeDiscount, makeOrder, makeProduct, productInput } from '../helpers/factories.ts';
import { assertNothingInternal, expectProblem, PROBLEM_KEYS } from '../helpers/problem.ts';

// ---------------------------------------------------------------------------------------------------------
// Test-only tools: one that fails unexpectedly (row 33) and a deprecated alias (row 38). Neither is anonymous, so
// the anonymous tools/list of row 34 is still exactly the five public tools.

const throwingTool = defineTool({
  name: 'hardening.throws',
  title: 'Throws',
  description: 'Fails with an error whose message holds SQL, a path and a stack frame.',
  scope: 'catalog:read',
  input: z.strictObject({}),
  output: z.object({}),
  kind: 'read',
  errors: [],
  handler: async () => {
    throw new Error('DELETE FROM "Product" failed\n    at handler (/work/main/src/tools/products.ts:12:3)');
  },
});

const DEPRECATED = { since: new Date('2026-01-01T00:00:00Z'), sunset: new Date('2027-01-01T00:00:00Z'), link: 'https://docs.example.com/deprecations/products.find' };
const deprecatedAlias = defineTool({
  name: 'products.find',
  title: 'Search products (deprecated alias)',
  description: 'Deprecated alias of products.search.',
  scope: 'catalog:read',
  input: z.strictObject({}),
  output: z.object({ alias: z.literal(true) }),
  kind: 'read',
  errors: [],
  deprecated: DEPRECATED,
  handler: async () => ({ alias: true as const }),
});

const PUBLIC_TOOLS = ['categories.list', 'products.get', 'products.search', 'site.get_page', 'site.list_pages'];

// ---------------------------------------------------------------------------------------------------------
// The shared app (real socket for MCP), an all-scopes key, and the MCP helpers.

let t: TestApp;
let base: string;
let admin: string;
let queries = 0;
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestApp({ tools: [...TOOLS, throwingTool, deprecatedAlias], onQuery: () => { queries++; } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${portOf(t.app)}`;
  admin = await t.key();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await t?.close();
});

function portOf(app: FastifyInstance): number {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}


async function connect(key?: string): Promise<Client> {
  const client = new Client({ name: 'hardening-rows', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
    requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : undefined,
  }));
  clients.push(client);
  return client;
}

let adminClient: Client | undefined;
const mcpAdmin = async () => (adminClient ??= await connect(admin));

/**
 * The outcome of an MCP call as one string: the problem `code` of an isError result or of an HTTP-level problem,
 * "ok" for a success, or "jsonrpc <code>" for a protocol error.
 */
type McpOutcome = { code: string; problem?: Record<string, unknown>; result?: Record<string, unknown> };

function fromToolResult(r: CallToolResult): McpOutcome {
  if (!r.isError) return { code: 'ok', result: r.structuredContent as Record<string, unknown> };
  const block = r.content[0];
  if (block?.type !== 'text') throw new Error(`isError without a text block: ${JSON.stringify(r)}`);
  const problem = JSON.parse(block.text) as Record<string, unknown>;
  expect(Object.keys(problem).sort()).toEqual(PROBLEM_KEYS);
  assertNothingInternal(block.text);
  return { code: String(problem.code), problem };
}

/** tools/call through the SDK Client (admin key unless another client is given). */
async function mcpCall(name: string, args: Record<string, unknown>, client?: Client, meta?: Record<string, unknown>): Promise<McpOutcome> {
  const c = client ?? (await mcpAdmin());
  return fromToolResult((await c.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult);
}

/** tools/call as raw bytes (for what the SDK client cannot send: literal numbers, broken JSON, non-object args). */
async function mcpRaw(name: string, argumentsJson: string, key: string | undefined = admin): Promise<McpOutcome & { status: number }> {
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsJson}}}`;
  const res = await fetch(`${base}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body,
  });
  const text = await res.text();
  assertNothingInternal(text);
  const json = JSON.parse(text) as Record<string, unknown>;
  if (String(res.headers.get('content-type')).startsWith('application/problem+json')) return { status: res.status, code: String(json.code), problem: json };
  if (json.error) return { status: res.status, code: `jsonrpc ${(json.error as { code: number }).code}` };
  return { status: res.status, ...fromToolResult(json.result as CallToolResult) };
}

const rawCall = (name: string, payload: string, key?: string, headers: Record<string, string> = {}) =>
  t.call(name, payload, key, { headers });

const validProduct = (slug: string, extra: Record<string, unknown> = {}) => productInput({ slug, priceDkk: 99_900, stock: 3, ...extra });
const infinitePrice = () => JSON.stringify(validProduct('infinite')).replace('99900', '1e400');
const productCount = () => t.db.product.count();
const auditCount = () => t.db.auditEntry.count();

// ---------------------------------------------------------------------------------------------------------

describe('docs/robustness.md, rows 1–2 (HTTP body framing)', () => {
  it('row 1: Content-Type text/plain carrying a JSON-looking body → 415 unsupported_media_type', async () => {
    expectProblem(await rawCall('products.search', '{"q":"x"}', undefined, { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });

  it('row 2: empty body with application/json → 400 invalid_body (problem+json, not Fastify’s shape)', async () => {
    expectProblem(await rawCall('products.search', ''), 400, 'invalid_body');
  });
});

describe('docs/robustness.md, rows 3–16 over REST and MCP (same problem code)', () => {
  it('row 3: truncated JSON {"q": → 400 invalid_json', async () => {
    expectProblem(await rawCall('products.search', '{"q":'), 400, 'invalid_json');
  });
  it('row 3 over MCP: truncated JSON-RPC body → 400 invalid_json', async () => {
    const res = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"products.search","arguments":{"q":',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_json');
  });

  const NOT_OBJECTS = ['[1]', '"x"', 'null', '42'];
  it('row 4: body [1], "x", null, 42 → 400 invalid_body', async () => {
    for (const body of NOT_OBJECTS) expectProblem(await rawCall('products.search', body), 400, 'invalid_body');
  });
  it('row 4 over MCP: arguments [1], "x", null, 42 → invalid_body', async () => {
    for (const args of NOT_OBJECTS) expect((await mcpRaw('products.search', args)).code, args).toBe('invalid_body');
  });

  it('row 5: body over the default bodyLimit (1,048,576 B) → 413 payload_too_large', async () => {
    expect(t.config.bodyLimitBytes).toBe(1_048_576);
    const big = JSON.stringify({ q: 'x'.repeat(1_048_576) });
    expectProblem(await rawCall('products.search', big), 413, 'payload_too_large');
  });
  it('row 5 over MCP: a JSON-RPC body over the limit → 413 payload_too_large', async () => {
    const res = await mcpRaw('products.search', JSON.stringify({ q: 'x'.repeat(1_048_576) }));
    expect([res.status, res.code]).toEqual([413, 'payload_too_large']);
  });

  const POISON = ['{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"isAdmin":true}}}'];
  it('row 6: __proto__ / constructor.prototype → 400 invalid_json, no privilege change, nothing written', async () => {
    const before = await productCount();
    for (const body of POISON) {
      expectProblem(await rawCall('products.create', body.replace('{', `{"name":"P","slug":"poison",`), admin), 400, 'invalid_json');
      expectProblem(await rawCall('products.search', body), 400, 'invalid_json');
    }
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(await productCount()).toBe(before);
  });
  it('row 6 over MCP: poisoned arguments → 400 invalid_json', async () => {
    for (const args of POISON) expect((await mcpRaw('products.search', args)).code, args).toBe('invalid_json');
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('row 7: unknown field {"q":"x","extra":1} → 400 invalid_request naming the field path', async () => {
    expect(expectProblem(await t.call('products.search', { q: 'x', extra: 1 }), 400, 'invalid_request').detail).toMatch(/"extra"/);
    const nested = expectProblem(await t.call('products.update', { slug: 'any', patch: { nmae: 'typo' } }, admin), 400, 'invalid_request');
    expect(nested.detail).toMatch(/patch.*"nmae"/);
  });
  it('row 7 over MCP: unknown field → invalid_request naming it', async () => {
    const r = await mcpCall('products.search', { q: 'x', extra: 1 });
    expect(r.code).toBe('invalid_request');
    expect(r.problem?.detail).toMatch(/"extra"/);
  });

  it('row 8: limit 9007199254740992 and the literal 9007199254740993 → 400 invalid_request', async () => {
    expectProblem(await t.call('products.search', { limit: 9007199254740992 }), 400, 'invalid_request');
    expectProblem(await rawCall('products.search', '{"limit":9007199254740993}'), 400, 'invalid_request');
    // A field whose only bound is the safe-integer range: 2^53 is refused, 2^53 − 1 accepted (dry run).
    expectProblem(await rawCall('products.create', JSON.stringify(validProduct('huge-price')).replace('99900', '9007199254740992'), admin), 400, 'invalid_request');
    expect((await t.call('products.create', { ...validProduct('max-price'), priceDkk: Number.MAX_SAFE_INTEGER, dryRun: true }, admin)).statusCode).toBe(200);
  });
  it('row 8 over MCP: the same literals → invalid_request', async () => {
    expect((await mcpRaw('products.search', '{"limit":9007199254740992}')).code).toBe('invalid_request');
    expect((await mcpRaw('products.search', '{"limit":9007199254740993}')).code).toBe('invalid_request');
  });

  it('row 9: {"priceDkk":1e400} (parses to Infinity) → 400 invalid_request', async () => {
    expectProblem(await rawCall('products.create', infinitePrice(), admin), 400, 'invalid_request');
  });
  it('row 9 over MCP: 1e400 → invalid_request', async () => {
    expect((await mcpRaw('products.create', infinitePrice())).code).toBe('invalid_request');
  });

  const BAD_PRICES: unknown[] = [-1, 12.5, '12.99', 0];
  it('row 10: negative price, fractional øre, "12.99" as a string (and 0) → 400 invalid_request, nothing created', async () => {
    const before = await productCount();
    for (const priceDkk of BAD_PRICES) {
      expectProblem(await t.call('products.create', { ...validProduct('bad-price'), priceDkk }, admin), 400, 'invalid_request');
    }
    expect(await productCount()).toBe(before);
  });
  it('row 10 over MCP: the same prices → invalid_request', async () => {
    for (const priceDkk of BAD_PRICES) expect((await mcpCall('products.create', { ...validProduct('bad-price'), priceDkk })).code).toBe('invalid_request');
  });

  const BAD_NAMES: [name: string, code: string][] = [
    ['Nul\u0000Byte', 'invalid_text'], ['x'.repeat(100_000), 'invalid_request'], ['Lone \ud800 surrogate', 'invalid_text'],
  ];
  it('row 11: NUL in a name or a lone surrogate → 400 invalid_text, a 100k-char name → 400 invalid_request (never a 500), nothing written', async () => {
    const [products, audits] = [await productCount(), await auditCount()];
    for (const [name, code] of BAD_NAMES) {
      expectProblem(await t.call('products.create', { ...validProduct('bad-name'), name }, admin), 400, code);
      expectProblem(await t.call('categories.upsert', { slug: 'bad-name', name }, admin), 400, code);
    }
    expect([await productCount(), await auditCount()]).toEqual([products, audits]);
  });
  it('row 11 over MCP: the same names → the same codes', async () => {
    for (const [name, code] of BAD_NAMES) expect((await mcpCall('products.create', { ...validProduct('bad-name'), name })).code).toBe(code);
  });

  const NOT_CONFIRMED: [string, Record<string, unknown>][] = [
    ['"true"', { confirm: 'true' }], ['1', { confirm: 1 }], ['"false"', { confirm: 'false' }], ['missing', {}], ['false', { confirm: false }],
  ];
  it('row 12: confirm:"true", 1, "false" or missing → 422 confirmation_required; nothing deleted', async () => {
    const p = await makeProduct(t.db, { slug: 'row-12' });
    for (const [label, extra] of NOT_CONFIRMED) {
      const body = expectProblem(await t.call('products.delete', { slug: p.slug, ...extra }, admin), 422, 'confirmation_required');
      expect(body.detail, label).toMatch(/dryRun/);
    }
    expect((await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).deletedAt).toBeNull();
  });
  it('row 12 over MCP: the same confirm values → confirmation_required', async () => {
    const p = await makeProduct(t.db, { slug: 'row-12-mcp' });
    for (const [label, extra] of NOT_CONFIRMED) expect((await mcpCall('products.delete', { slug: p.slug, ...extra })).code, label).toBe('confirmation_required');
    expect((await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).deletedAt).toBeNull();
  });

  it('row 13: slug change in an update → 422 slug_immutable; slug unchanged', async () => {
    const p = await makeProduct(t.db, { slug: 'row-13' });
    expectProblem(await t.call('products.update', { slug: 'row-13', patch: { slug: 'row-13-new', name: 'Renamed' } }, admin), 422, 'slug_immutable');
    expect(await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).toMatchObject({ slug: 'row-13', name: p.name });
  });
  it('row 13 over MCP: slug change → slug_immutable', async () => {
    await makeProduct(t.db, { slug: 'row-13-mcp' });
    expect((await mcpCall('products.update', { slug: 'row-13-mcp', patch: { slug: 'other' } })).code).toBe('slug_immutable');
    expect(await t.db.product.count({ where: { slug: 'other' } })).toBe(0);
  });

  const massAssignments = (productSlug: string): [string, Record<string, unknown>][] => [
    ['discounts.create', { code: 'MASS1', type: 'percent', value: 10, usageCount: 99 }],
    ['discounts.create', { code: 'MASS2', type: 'percent', value: 10, usedCount: 99 }],
    ['products.create', { ...validProduct('mass-assign'), storeId: 'other-store' }],
    ['products.create', { ...validProduct('mass-assign'), id: 'chosen-id' }],
    ['products.update', { slug: productSlug, patch: { id: 'chosen-id' } }],
    ['products.update', { slug: productSlug, patch: { createdAt: '2000-01-01T00:00:00Z' } }],
    ['products.update', { slug: productSlug, patch: { deletedAt: null, name: 'Changed' } }],
  ];
  it('row 14: mass assignment (usageCount/usedCount, storeId, id, createdAt) → 400 invalid_request; values unchanged', async () => {
    const p = await makeProduct(t.db, { slug: 'row-14' });
    for (const [tool, body] of massAssignments(p.slug)) expectProblem(await t.call(tool, body, admin), 400, 'invalid_request');
    expect(await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).toEqual(p);
    expect(await t.db.discountCode.count({ where: { code: { in: ['MASS1', 'MASS2'] } } })).toBe(0);
  });
  it('row 14 over MCP: the same bodies → invalid_request', async () => {
    const p = await makeProduct(t.db, { slug: 'row-14-mcp' });
    for (const [tool, body] of massAssignments(p.slug)) expect((await mcpCall(tool, body)).code, `${tool} ${JSON.stringify(body)}`).toBe('invalid_request');
    expect(await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).toEqual(p);
  });

  const LITERAL_QUERIES: [string, string[]][] = [
    ["' OR 1=1 --", []],
    ['%', ['row-15-percent']],
    ['_', ['row-15-underscore']],
    ['\\', ['row-15-backslash']],
  ];
  const searchSlugs = (res: { json: () => unknown }) => ((res.json() as { result: { slug: string }[] }).result.map((p) => p.slug).sort());
  it('row 15: q = "\' OR 1=1 --", "%", "_", "\\\\" → 200 with literal matching ("%" is not the whole catalog)', async () => {
    await makeProduct(t.db, { slug: 'row-15-percent', name: '100% Polarized Row15' });
    await makeProduct(t.db, { slug: 'row-15-underscore', name: 'Under_score Row15' });
    await makeProduct(t.db, { slug: 'row-15-backslash', name: 'Back\\slash Row15' });
    await makeProduct(t.db, { slug: 'row-15-plain', name: 'Plain Row15' });
    for (const [q, expected] of LITERAL_QUERIES) {
      const res = await t.call('products.search', { q, limit: 100 });
      expect(res.statusCode, q).toBe(200);
      expect(searchSlugs(res), q).toEqual(expected);
    }
  });
  it('row 15 over MCP: the same queries → ok with the same results', async () => {
    for (const [q, expected] of LITERAL_QUERIES) {
      const r = await mcpCall('products.search', { q, limit: 100 });
      expect(r.code, q).toBe('ok');
      expect((r.result?.result as { slug: string }[]).map((p) => p.slug).sort(), q).toEqual(expected);
    }
  });

  const BAD_PAGING: [string, Record<string, unknown>, string][] = [
    ['products.search', { limit: 100_000 }, 'invalid_request'],
    ['orders.list', { limit: 100_000 }, 'invalid_request'],
    ['audit.list', { cursor: 'garbage' }, 'invalid_cursor'],
    ['audit.list', { cursor: Buffer.from('1.2.3').toString('base64url') }, 'invalid_cursor'],
    ['products.search', { offset: -1 }, 'invalid_request'],
    ['audit.list', { limit: -1 }, 'invalid_request'],
  ];
  it('row 16: limit 100000, a negative offset → 400 invalid_request; a garbage cursor → 400 invalid_cursor', async () => {
    for (const [tool, body, code] of BAD_PAGING) expectProblem(await t.call(tool, body, admin), 400, code);
  });
  it('row 16 over MCP: the same paging, the same codes', async () => {
    for (const [tool, body, code] of BAD_PAGING) expect((await mcpCall(tool, body)).code, `${tool} ${JSON.stringify(body)}`).toBe(code);
  });
});

describe('docs/robustness.md, rows 17–23 (keys, scopes, rate limits)', () => {
  it('row 17: a write tool with no Authorization → 401 unauthorized + WWW-Authenticate: Bearer …', async () => {
    const res = await t.call('products.create', validProduct('no-auth'));
    expectProblem(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer .*scope="products:write"/);
  });

  it('row 18: bad checksum or prefix, "Bearer " with nothing, Basic, two Authorization headers → 401 with 0 DB queries', async () => {
    const good = await t.key();
    const headers: (string | string[])[] = [
      `Bearer ${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`,
      `Bearer ${good.replace(/^[a-z]+_/, 'sfk_')}`,
      'Bearer ',
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      [`Bearer ${good}`, `Bearer ${good}`],
    ];
    await sleep(50);
    queries = 0;
    for (const h of headers) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/tools/products.create', headers: { 'content-type': 'application/json', authorization: h as string }, payload: '{}' });
      expectProblem(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    }
    expect(queries).toBe(0);
  });

  it('row 19: a well-formed unknown key → 401 with the same body as a revoked key', async () => {
    const unknown = generateKey(generateKeyId()).key;
    const revoked = await createKey(t.db, { name: 'row-19', scopes: ['products:write'] });
    await revokeKey(t.db, revoked.id);
    const a = expectProblem(await t.call('products.create', {}, unknown), 401, 'unauthorized');
    const b = expectProblem(await t.call('products.create', {}, revoked.key), 401, 'unauthorized');
    expect({ ...a, instance: '' }).toEqual({ ...b, instance: '' });
  });

  it('row 20: a revoked key is refused within a few seconds; an expired key is 401', async () => {
    const issued = await createKey(t.db, { name: 'row-20', scopes: ['catalog:read'] });
    expect((await t.call('products.search', {}, issued.key)).statusCode).toBe(200);
    await revokeKey(t.db, issued.id);
    const revokedAt = Date.now();
    let refusedAfter = Infinity;
    while (Date.now() - revokedAt < 5_000) {
      if ((await t.call('products.search', {}, issued.key)).statusCode === 401) {
        refusedAfter = Date.now() - revokedAt;
        break;
      }
      await sleep(50);
    }
    expect(refusedAfter).toBeLessThan(3_000);
    const expired = await createKey(t.db, { name: 'row-20-expired', scopes: ['catalog:read'], expiresAt: new Date(Date.now() - 1000) });
    expectProblem(await t.call('products.search', {}, expired.key), 401, 'unauthorized');
  });

  it('row 21: a valid key lacking the scope → 403 insufficient_scope + WWW-Authenticate error="insufficient_scope", never 401', async () => {
    const reader = await t.key(['catalog:read']);
    const res = await t.call('products.create', validProduct('row-21'), reader);
    expectProblem(res, 403, 'insufficient_scope');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer .*error="insufficient_scope".*scope="products:write"/);
  });

  it('row 22: bearer attempts over the pre-auth allowance (RATE_LIMIT_PREAUTH_MAX=5) → #6 is 429 with RateLimit "preauth";r=0 and Retry-After; ≤ 5 key lookups', async () => {
    let lookups = 0;
    const small = await createTestApp({ env: { RATE_LIMIT_PREAUTH_MAX: '5' }, onQuery: () => { lookups++; } });
    try {
      const attempt = () => small.call('products.create', {}, generateKey(generateKeyId()).key, { remoteAddress: '10.22.0.1' });
      for (let i = 0; i < 5; i++) expectProblem(await attempt(), 401, 'unauthorized');
      const res = await attempt();
      const body = expectProblem(res, 429, 'rate_limited');
      expect(body.type).toBe('https://iana.org/assignments/http-problem-types#quota-exceeded');
      expect(res.headers.ratelimit).toMatch(/"preauth";r=0;t=\d+/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(lookups).toBeLessThanOrEqual(5);
    } finally {
      await small.close();
    }
  });

  it('row 23: anonymous reads over the allowance (RATE_LIMIT_ANON_MAX=5) → #6 is 429; rotating X-Forwarded-For does not reset it', async () => {
    const small = await createTestApp({ env: { RATE_LIMIT_ANON_MAX: '5' } });
    try {
      const read = (i: number) => small.call('products.search', {}, undefined, { remoteAddress: '10.23.0.1', headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      for (let i = 0; i < 5; i++) expect((await read(i)).statusCode).toBe(200);
      const res = await read(99);
      expectProblem(res, 429, 'rate_limited');
      expect(res.headers.ratelimit).toMatch(/"anon";r=0;t=\d+/);
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await small.close();
    }
  });
});

describe('docs/robustness.md, rows 25–28 (conflicts, races, idempotency)', () => {
  it('row 25: duplicate slug/code on create → 409 conflict; deleting a product referenced by an order is never a 500', async () => {
    await makeProduct(t.db, { slug: 'row-25' });
    expectProblem(await t.call('products.create', validProduct('row-25'), admin), 409, 'conflict');
    await makeDiscount(t.db, { code: 'ROW25' });
    expectProblem(await t.call('discounts.create', { code: 'row25', type: 'percent', value: 5 }, admin), 409, 'conflict');
    // Products are soft-deleted, so an ordered product can be deleted and the order keeps its line.
    const ordered = await makeProduct(t.db, { slug: 'row-25-ordered' });
    const order = await makeOrder(t.db, { items: [{ productId: ordered.id, quantity: 1 }] });
    expect((await t.call('products.delete', { slug: 'row-25-ordered', confirm: true }, admin)).statusCode).toBe(200);
    expect(await t.db.orderItem.count({ where: { orderId: order.id, productId: ordered.id } })).toBe(1);
    // The mapping for the database's own unique / foreign-key violations (races past the handler's checks).
    expect(classifyUnknown({ code: 'P2002' }).code).toBe('conflict');
    expect(classifyUnknown({ code: 'P2003' }).code).toBe('conflict');
  });

  /** n carts of one unit each (built with cart.create), then n checkouts at once. */
  async function raceCheckouts(n: number, productSlug: string, extra: Record<string, unknown> = {}) {
    const buyer = await t.key(['cart:write']);
    const carts: string[] = [];
    for (let i = 0; i < n; i++) carts.push((await createCart(t, buyer, [{ productSlug, quantity: 1 }])).cartId);
    return concurrently(n, (i) => t.call('checkout.create_order', { cartId: carts[i], ...CHECKOUT_CONTACT, ...extra }, buyer));
  }
  const tally = (responses: { statusCode: number; json: () => { code?: string } }[]) =>
    responses.reduce<Record<string, number>>((acc, r) => {
      const k = r.statusCode === 200 ? 'ok' : `${r.statusCode} ${r.json().code}`;
      acc[k] = (acc[k] ?? 0) + 1;
      return acc;
    }, {});

  it('row 26: usageLimit 5, 20 concurrent redemptions → exactly 5 succeed, 15 → 422 discount_unavailable, usageCount 5', async () => {
    await makeProduct(t.db, { slug: 'row-26', stock: 100 });
    await makeDiscount(t.db, { code: 'ROW26', usageLimit: 5 });
    expect(tally(await raceCheckouts(20, 'row-26', { discountCode: 'ROW26' }))).toEqual({ ok: 5, '422 discount_unavailable': 15 });
    expect((await t.db.discountCode.findUniqueOrThrow({ where: { code: 'ROW26' } })).usageCount).toBe(5n);
    expect((await t.db.product.findUniqueOrThrow({ where: { slug: 'row-26' } })).stock).toBe(95n);
  });

  it('row 27: stock 3, 10 concurrent qty-1 orders → 3 succeed, 7 → 422 out_of_stock, stock 0; CHECK (stock >= 0) backstop', async () => {
    const p = await makeProduct(t.db, { slug: 'row-27', stock: 3 });
    expect(tally(await raceCheckouts(10, 'row-27'))).toEqual({ ok: 3, '422 out_of_stock': 7 });
    expect((await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).stock).toBe(0n);
    await expect(t.db.$executeRaw`UPDATE "Product" SET stock = -1 WHERE id = ${p.id}`).rejects.toThrow(/check/i);
  });

  it('row 28: Idempotency-Key replay (+Idempotent-Replayed, one row); other body → 422; while running → 409; > 255 chars → 400', async () => {
    const issued = await createKey(t.db, { name: 'row-28', scopes: ['products:write'] });
    const withKey = (key: string, body: unknown) => t.call('products.create', body, issued.key, { headers: { 'idempotency-key': key } });

    const first = await withKey('row-28-a', validProduct('row-28'));
    const again = await withKey('"row-28-a"', validProduct('row-28'));
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await t.db.product.count({ where: { slug: 'row-28' } })).toBe(1);

    expectProblem(await withKey('row-28-a', validProduct('row-28-other')), 422, 'idempotency_key_reused');

    // "Two at once": hold the key's lock from another session, as a still-running first call would.
    const holder = new pg.Client({ connectionString: t.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`${issued.id}:row-28-b`]);
      expectProblem(await withKey('row-28-b', validProduct('row-28-b')), 409, 'idempotency_in_progress');
    } finally {
      await holder.end();
    }
    expect((await withKey('row-28-b', validProduct('row-28-b'))).statusCode).toBe(200);

    expectProblem(await withKey('k'.repeat(256), validProduct('row-28-long')), 400, 'invalid_idempotency_key');
    expect(await t.db.product.count({ where: { slug: { in: ['row-28-other', 'row-28-long'] } } })).toBe(0);
  });

  it('row 28 over MCP: _meta.idempotencyKey replays the first result, marked _meta.idempotentReplayed', async () => {
    const client = await mcpAdmin();
    const first = await mcpCall('products.create', validProduct('row-28-mcp'), client, { idempotencyKey: 'row-28-mcp' });
    const raw = (await client.callTool({ name: 'products.create', arguments: validProduct('row-28-mcp'), _meta: { idempotencyKey: 'row-28-mcp' } })) as CallToolResult;
    expect(first.code).toBe('ok');
    expect(raw.structuredContent).toEqual(first.result);
    expect(raw._meta).toMatchObject({ idempotentReplayed: true });
    expect(await t.db.product.count({ where: { slug: 'row-28-mcp' } })).toBe(1);
    expect((await mcpCall('products.create', validProduct('row-28-mcp-2'), client, { idempotencyKey: 'row-28-mcp' })).code).toBe('idempotency_key_reused');
  });
});

describe('docs/robustness.md, rows 29–31 (image URLs and upstreams)', () => {
  it('row 29: attach_image with http:, loopback, link-local, [::1], 0x7f000001, file:, credentials → 400 invalid_image_url; no connection made', async () => {
    let connections = 0;
    const trap = net.createServer((s) => { connections++; s.destroy(); });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    const trapPort = (trap.address() as net.AddressInfo).port;
    try {
      const p = await makeProduct(t.db, { slug: 'row-29' });
      const urls = [
        'http://images.example.com/a.jpg',
        `https://127.0.0.1:${trapPort}/a.jpg`,
        'https://169.254.169.254/latest/meta-data/',
        `https://[::1]:${trapPort}/a.jpg`,
        `https://0x7f000001:${trapPort}/a.jpg`,
        'file:///etc/passwd',
        'https://u:p@images.example.com/a.jpg',
        `https://localhost:${trapPort}/a.jpg`,
      ];
      for (const imageUrl of urls) {
        expectProblem(await t.call('products.attach_image', { slug: 'row-29', imageUrl }, admin), 400, 'invalid_image_url');
      }
      await sleep(100);
      expect(connections).toBe(0);
      expect((await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).images).toEqual(p.images);
    } finally {
      await new Promise((r) => trap.close(r));
    }
  });

  it.skip('row 29 (host resolving to a private address, redirect to a private address): skipped — the service never resolves or fetches image URLs (checkImageUrl is syntactic; products.attach_image stores the URL), so there is no DNS lookup or redirect to steer', () => {});

  it.skip('row 30 (image over the size cap, wrong content-type, slowloris upstream): skipped — no tool downloads images; products.attach_image stores the URL without fetching it', () => {});

  if (TOOLS.some((tool) => tool.name === 'images.search_stock')) {
    it.todo('row 31: images.search_stock now exists — prove upstream 500 / timeout / malformed JSON / wrong types → 502/504 upstream_error, no partial writes');
  } else {
    it.skip('row 31 (search_stock upstream 500, timeout, malformed JSON, wrong field types): skipped — images.search_stock is not in the registry', () => {});
  }
});

describe('docs/robustness.md, rows 32–33 (faults)', () => {
  it('row 32: database down (pool pointed at 127.0.0.1:1) → 503 service_unavailable + Retry-After, no internals (stop/restart: database-down.test.ts)', async () => {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none' });
    const db = createDb({ connectionString: config.databaseUrl!, poolMax: 2 });
    const down = await buildApp(config, { db });
    try {
      const read = await down.inject({ method: 'POST', url: '/api/v1/tools/products.search', headers: { 'content-type': 'application/json' }, payload: '{}' });
      expectProblem(read, 503, 'service_unavailable');
      expect(Number(read.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const write = await down.inject({
        method: 'POST', url: '/api/v1/tools/products.create', payload: JSON.stringify(validProduct('down')),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${generateKey(generateKeyId()).key}` },
      });
      expectProblem(write, 503, 'service_unavailable');
      expect(write.headers['retry-after']).toBeDefined();
    } finally {
      await down.close();
      await db.$disconnect().catch(() => {});
    }
  });

  it('row 33: a handler throwing an unexpected error → 500 internal_error with only the instance/request id', async () => {
    const res = await t.call('hardening.throws', {}, admin);
    const body = expectProblem(res, 500, 'internal_error');
    expect(body.detail).toBe('An unexpected error occurred.');
    expect(body.instance).toBe(`/api/v1/tools/hardening.throws#req-${res.headers['x-request-id']}`);
  });
});

describe('docs/robustness.md, rows 34–37 (MCP)', () => {
  it('row 34: MCP tools/list anonymously → exactly the 5 public tools; with a key, only what its scopes allow', async () => {
    const names = async (c: Client) => (await c.listTools()).tools.map((tool) => tool.name).sort();
    expect(await names(await connect())).toEqual(PUBLIC_TOOLS);
    const scopes: Scope[] = ['orders:read'];
    const expected = [...PUBLIC_TOOLS, ...TOOLS.filter((tool) => tool.scope === 'orders:read').map((tool) => tool.name)].sort();
    expect(await names(await connect(await t.key(scopes)))).toEqual(expected);
  });

  it('row 35: MCP tools/call of a write tool anonymously → unauthorized tool error; bad argument types → isError invalid_request', async () => {
    const anon = await connect();
    expect((await mcpCall('products.create', validProduct('row-35'), anon)).code).toBe('unauthorized');
    const bad = await mcpCall('products.search', { limit: 'ten', featured: 'yes' });
    expect(bad.code).toBe('invalid_request');
    expect(await t.db.product.count({ where: { slug: 'row-35' } })).toBe(0);
  });

  it('row 36: MCP Origin http://evil.example → 403; unsupported MCP-Protocol-Version → 400; GET /api/mcp without SSE → 405', async () => {
    const post = (headers: Record<string, string>) => fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect((await post({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
    expect((await fetch(`${base}/api/mcp`, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
  });

  it('row 37: parity — rows 3–16 give the same problem code through MCP as through REST', async () => {
    const p = await makeProduct(t.db, { slug: 'row-37' });
    const cases: [string, string, string][] = [
      // [tool, raw JSON arguments, expected code]
      ['products.search', '[1]', 'invalid_body'],
      ['products.search', '{"q":"x","extra":1}', 'invalid_request'],
      ['products.search', '{"limit":9007199254740993}', 'invalid_request'],
      ['products.create', infinitePrice(), 'invalid_request'],
      ['products.create', JSON.stringify({ ...validProduct('row-37-b'), priceDkk: '12.99' }), 'invalid_request'],
      ['products.create', JSON.stringify({ ...validProduct('row-37-b'), name: 'a\u0000b' }), 'invalid_text'],
      ['products.delete', JSON.stringify({ slug: p.slug, confirm: 'true' }), 'confirmation_required'],
      ['products.update', JSON.stringify({ slug: p.slug, patch: { slug: 'row-37-new' } }), 'slug_immutable'],
      ['discounts.create', '{"code":"ROW37","type":"percent","value":5,"usageCount":9}', 'invalid_request'],
      ['products.search', '{"q":"%"}', 'ok'],
      ['audit.list', '{"cursor":"garbage"}', 'invalid_cursor'],
    ];
    for (const [tool, args, code] of cases) {
      const rest = await rawCall(tool, args, admin);
      const restCode = rest.statusCode === 200 ? 'ok' : String(rest.json().code);
      const mcp = await mcpRaw(tool, args);
      expect([restCode, mcp.code], `${tool} ${args}`).toEqual([code, code]);
      if (mcp.problem) expect(mcp.problem.status).toBe(PROBLEMS[code as keyof typeof PROBLEMS].status);
    }
    expect(await t.db.product.findUniqueOrThrow({ where: { id: p.id } })).toEqual(p);
  });
});

describe('docs/robustness.md, rows 38–40 (deprecation, discovery, load)', () => {
  it('row 38: a deprecated tool alias → 200 + Deprecation: @ts, Sunset ≥ the deprecation date, Link rel="deprecation"', async () => {
    const res = await t.call('products.find', {}, admin);
    expect(res.statusCode).toBe(200);
    const deprecation = /^@(\d+)$/.exec(String(res.headers.deprecation));
    expect(Number(deprecation?.[1])).toBe(DEPRECATED.since.getTime() / 1000);
    const sunset = Date.parse(String(res.headers.sunset));
    expect(String(res.headers.sunset)).toMatch(/GMT$/);
    expect(sunset).toBeGreaterThanOrEqual(Number(deprecation?.[1]) * 1000);
    expect(res.headers.link).toContain(`<${DEPRECATED.link}>; rel="deprecation"`);
    expect((await t.call('products.search', {})).headers.deprecation).toBeUndefined();
  });

  it('row 39: GET/HEAD /.well-known/api-catalog (linkset + profile, Link rel="api-catalog"); both server-card paths byte-identical, CORS *, no secrets', async () => {
    const get = await t.app.inject({ method: 'GET', url: '/.well-known/api-catalog' });
    expect(get.statusCode).toBe(200);
    expect(get.headers['content-type']).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    expect(Array.isArray(get.json().linkset)).toBe(true);
    const head = await t.app.inject({ method: 'HEAD', url: '/.well-known/api-catalog' });
    expect(head.statusCode).toBe(200);
    expect(head.headers.link).toMatch(/rel="api-catalog"/);
    const [card, legacy] = await Promise.all(['/.well-known/mcp/server-card.json', '/.well-known/mcp.json'].map((url) => t.app.inject({ method: 'GET', url })));
    expect(card.statusCode).toBe(200);
    expect(legacy.body).toBe(card.body);
    for (const r of [card, legacy]) expect(r.headers['access-control-allow-origin']).toBe('*');
    const dbPassword = new URL(t.url).password;
    expect(card.body).not.toMatch(/aak_[A-Za-z0-9]|sfk_[A-Za-z0-9]|password|postgres(ql)?:\/\//i);
    if (dbPassword) expect(card.body).not.toContain(dbPassword);
    expect(card.body).not.toContain(admin);
  });

  it(`row 40: load (${Number(process.env.HARDENING_LOAD_SECONDS ?? 3)} s × 10 connections; HARDENING_LOAD_SECONDS=30 for the full row) on a catalog read → no non-2xx, p99 recorded, no memory growth`, async () => {
    const seconds = Number(process.env.HARDENING_LOAD_SECONDS ?? 3);
    const gc = exposeGc();
    await makeProduct(t.db, { slug: 'row-40', name: 'Load Row40' });
    const run = (duration: number) => autocannon({
      url: `${base}/api/v1/tools/products.search`, connections: 10, duration, method: 'POST',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: 'Row40', limit: 5 }),
    });
    await run(1); // warm-up: JIT, pool connections, caches
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const result = await run(seconds);
    gc();
    const growthMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    console.log(`[row 40] ${result.requests.total} requests in ${seconds} s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}, heap growth ${growthMb.toFixed(1)} MB`);
    expect(result.requests.total).toBeGreaterThan(0);
    expect(result.non2xx).toBe(0);
    expect(result.errors).toBe(0);
    expect(growthMb).toBeLessThan(32);
  }, 60_000 + Number(process.env.HARDENING_LOAD_SECONDS ?? 3) * 1000);
});

/** A real gc() without --expose-gc on the command line (set the flag at runtime, then fetch gc in a new context). */
function exposeGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}
