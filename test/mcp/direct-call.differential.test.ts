// The direct path for tools/call (src/mcp/direct-call.ts) answers exactly what the SDK answers. Two apps, the path on
// and off, each on its own database, receive the same generated requests in the same order, so their states move in
// lockstep (writes, conflicts, idempotent replays, rate-limit counters); every answer is compared: status, the headers
// that matter and the JSON with generated ids, timestamps and request ids normalised. The SDK's Server class is
// counted, so the test also shows the direct path was taken where it should be, and nowhere it should not.
// Replay a failure with DIRECT_CALL_SEED=<seed> (and DIRECT_CALL_PATH=<path> from fast-check's report); DIRECT_CALL_RUNS
// sets the number of generated requests.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/** Servers the SDK path built: the direct path builds none. */
const sdk = vi.hoisted(() => ({ servers: 0 }));
vi.mock('@modelcontextprotocol/server', async (importOriginal) => {
  const original = await importOriginal<typeof import('@modelcontextprotocol/server')>();
  class CountedServer extends original.Server {
    constructor(...args: ConstructorParameters<typeof original.Server>) {
      super(...args);
      sdk.servers++;
    }
  }
  return { ...original, Server: CountedServer };
});

const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'differential', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const SLUGS = ['diff-a', 'diff-b'] as const;
const CALLERS = ['anonymous', 'all scopes', 'catalog only', 'invalid key'] as const;
type Caller = (typeof CALLERS)[number];

type Side = { t: TestApp; keys: Record<Exclude<Caller, 'anonymous'>, string> };
let on: Side;
let off: Side;
/** The path-on app over real HTTP, for the SDK's own client. */
let onBase: string;

async function side(env: Record<string, string>): Promise<Side> {
  const t = await createTestApp({ env });
  return { t, keys: { 'all scopes': await t.key(), 'catalog only': await t.key(['catalog:read']), 'invalid key': 'aa_live_not-a-key' } };
}

beforeAll(async () => {
  [on, off] = await Promise.all([side({}), side({ MCP_DIRECT_CALL: 'off' })]);
  await on.t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = on.t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  onBase = `http://127.0.0.1:${address.port}`;
  // The same catalogue on both: one product each call can find, update, delete.
  for (const { t, keys } of [on, off]) {
    const res = await t.call('products.create', { name: 'Diff Base', slug: 'diff-base', description: 'Differential.', priceDkk: 10_000, stock: 4 }, keys['all scopes']);
    expect(res.statusCode).toBe(200);
  }
});
afterAll(async () => {
  await Promise.all([on?.t.close(), off?.t.close()]);
});

type Request = { headers: Record<string, string | string[]>; payload: string; caller: Caller; path: string };

async function send(s: Side, r: Request): Promise<{ res: LightMyRequestResponse; servers: number }> {
  const before = sdk.servers;
  const auth = r.caller === 'anonymous' ? {} : { authorization: `Bearer ${s.keys[r.caller]}` };
  const res = await s.t.app.inject({ method: 'POST', url: r.path, headers: { ...auth, ...r.headers }, payload: r.payload });
  return { res, servers: sdk.servers - before };
}

/** What both sides must agree on: status, the headers that matter, and the body with per-app values normalised. */
/**
 * The body with what differs between two databases or two requests masked: ids (a default variant's id derives from
 * its product's), timestamps, request ids, and the sealed requestState of an approval question (its key id and nonce are each app's own).
 */
function normalised(body: string): string {
  return body
    .replace(/"requestState":"v1\.[^"]*"/g, '"requestState":"<sealed>"')
    .replace(/req-[0-9a-f]+/g, 'req-*')
    .replace(/\bc[a-z0-9]{24}\b/g, '<cuid>')
    .replace(/\bv[0-9a-f]{32}\b/g, '<variant>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>');
}

function comparable(res: LightMyRequestResponse) {
  let body: unknown = normalised(res.body);
  try {
    body = JSON.parse(normalised(res.body));
  } catch {
    // Not JSON (an empty 202, say): compared as text.
  }
  const header = (name: string) => {
    const value = res.headers[name];
    return value === undefined ? undefined : String(value);
  };
  return {
    status: res.statusCode,
    contentType: header('content-type'),
    mcpSession: header('mcp-session-id'),
    wwwAuthenticate: header('www-authenticate'),
    allow: header('allow'),
    retryAfter: header('retry-after'),
    rateLimitPolicy: header('ratelimit-policy'),
    // Their shape: which limits counted the request. (The SDK client test above calls one app only, and the reset
    // second may tick between the two.)
    rateLimit: header('ratelimit')?.replace(/=\d+/g, '=*'),
    rateLimitRemaining: header('ratelimit-remaining')?.replace(/\d+/g, '*'),
    body,
  };
}

// ---- generators -------------------------------------------------------------------------------------------------

/**
 * The canonical value six times in seven, else one of the variants: with a dozen dimensions, about a fifth of the
 * requests come out canonical in all of them (the direct path's) and the rest differ somewhere.
 */
function mostly<T>(canonical: fc.Arbitrary<T>, ...variants: fc.Arbitrary<T>[]): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: canonical, weight: 6 * variants.length }, ...variants.map((arbitrary) => ({ arbitrary, weight: 1 })));
}
const one = <T>(value: T) => fc.constant(value);

const revision = fc.constantFrom<string | undefined>(MODERN, MODERN, ...LEGACY, undefined);
const MISSING = Symbol('missing');
const id = mostly<unknown>(
  fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.string({ maxLength: 8 })),
  one(0), fc.integer({ min: -1_000_000, max: -1 }), one(1.5), one(null), one(MISSING), one(2 ** 60), one(true), one({ nested: 1 }),
);
const slug = fc.constantFrom(...SLUGS, 'diff-base', 'no-such-product');
/** Canonical and odd arguments of the tools the test calls. */
const call = fc.oneof(
  fc.record({ name: one('products.search'), arguments: mostly<unknown>(one({ limit: 1 }), one({}), one({ q: 'Diff' }), one({ limit: 'ten' }), one({ limit: 1, extra: true }), one(MISSING)) }),
  fc.record({ name: one('products.get'), arguments: mostly<unknown>(slug.map((s) => ({ slug: s })), one({ slug: 7 }), one(null), one([1]), one('diff-base'), one(42)) }),
  fc.record({
    name: one('products.create'),
    arguments: fc.record({ slug, dryRun: fc.constantFrom<unknown>(MISSING, MISSING, true, false, 'yes') }).map(({ slug: s, dryRun }): unknown => ({
      name: `Diff ${s}`, slug: s, description: 'Made by the differential test.', priceDkk: 12_300, stock: 2, ...(dryRun === MISSING ? {} : { dryRun }),
    })),
  }),
  fc.record({ name: one('products.update'), arguments: slug.map((s): unknown => ({ slug: s, patch: { stock: 9 } })) }),
  fc.record({
    name: one('products.delete'),
    arguments: fc.record({ slug, confirm: fc.constantFrom<unknown>(MISSING, true, false), dryRun: fc.constantFrom<unknown>(MISSING, true) }).map(({ slug: s, confirm, dryRun }): unknown => ({
      slug: s, ...(confirm === MISSING ? {} : { confirm }), ...(dryRun === MISSING ? {} : { dryRun }),
    })),
  }),
  fc.record({ name: fc.constantFrom('no.such_tool', 'tools.find', ''), arguments: one<unknown>({}) }),
);
const idempotencyKey = fc.constantFrom<unknown>(MISSING, MISSING, 'diff-key-1', 'diff-key-2', 7, '');
/** What the request's `_meta` holds beside an idempotency key. */
const envelope = mostly(
  one('canonical'), one('no client info'), one('no capabilities'), one('elicitation'), one('log level'), one('progress token'), one('other version'), one('not an object'), one('none'),
);
const bodyShape = mostly(
  one('canonical'), one('extra top-level key'), one('extra params key'), one('no jsonrpc'), one('jsonrpc 1.0'), one('no params'), one('tools/list'), one('batch of one'), one('notification'), one('task'), one('requestState'),
);
const contentType = mostly<string | string[]>(one('application/json'), one('application/json; charset=utf-8'), one('Application/JSON'), one('application/json;'), one(['application/json', 'application/json']));
const accept = mostly<string | undefined>(one('application/json, text/event-stream'), one('text/event-stream, application/json'), one('application/json'), one('*/*'), one(undefined));
const headerVariant = mostly(
  one('canonical'), one('no version'), one('other version'), one('unsupported version'), one('no method'), one('wrong method'), one('no name'), one('wrong name'), one('base64 name'), one('padded name'), one('upper-case names'), one('twice'),
);
const caller = mostly<Caller>(one('all scopes'), one('anonymous'), one('catalog only'), one('invalid key'));
const path = mostly(one('/api/mcp'), one('/api/mcp/admin'), one('/api/mcp?toolset=discovery'));
/** One request in five is a tools/list (params: only `_meta`; the `call` drawn is then not sent). */
const method = fc.constantFrom<'tools/call' | 'tools/list'>('tools/call', 'tools/call', 'tools/call', 'tools/call', 'tools/list');

const request = fc
  .record({ method, revision, id, call, idempotencyKey, envelope, bodyShape, contentType, accept, headerVariant, caller, path })
  .map((g): Request => {
    const modern = g.revision === MODERN;
    const metaBase: Record<string, unknown> = {};
    if (modern) {
      const env: Record<string, unknown> = { ...ENVELOPE };
      if (g.envelope === 'no client info') delete env['io.modelcontextprotocol/clientInfo'];
      if (g.envelope === 'no capabilities') delete env['io.modelcontextprotocol/clientCapabilities'];
      if (g.envelope === 'elicitation') env['io.modelcontextprotocol/clientCapabilities'] = { elicitation: { form: {} } };
      if (g.envelope === 'log level') env['io.modelcontextprotocol/logLevel'] = 'debug';
      if (g.envelope === 'other version') env['io.modelcontextprotocol/protocolVersion'] = '2025-11-25';
      if (g.envelope !== 'none') Object.assign(metaBase, env);
    }
    if (g.envelope === 'progress token') metaBase.progressToken = 5;
    if (g.idempotencyKey !== MISSING) metaBase.idempotencyKey = g.idempotencyKey;
    const meta: unknown = g.envelope === 'not an object' ? 'meta' : metaBase;
    const listing = g.method === 'tools/list';
    const params: Record<string, unknown> = {
      ...(listing ? {} : { name: g.call.name }),
      ...(listing || g.call.arguments === MISSING ? {} : { arguments: g.call.arguments }),
      ...(g.envelope === 'not an object' || Object.keys(metaBase).length > 0 ? { _meta: meta } : {}),
    };
    if (g.bodyShape === 'extra params key') params.extra = 1;
    if (g.bodyShape === 'task') params.task = { ttl: 1000 };
    if (g.bodyShape === 'requestState') params.requestState = 'forged';
    const message: Record<string, unknown> = { jsonrpc: '2.0', ...(g.id === MISSING ? {} : { id: g.id }), method: g.method, params };
    // A 2025-era list usually comes without params.
    if (listing && !modern && Object.keys(params).length === 0 && g.bodyShape === 'canonical') delete message.params;
    if (g.bodyShape === 'extra top-level key') message.extra = true;
    if (g.bodyShape === 'no jsonrpc') delete message.jsonrpc;
    if (g.bodyShape === 'jsonrpc 1.0') message.jsonrpc = '1.0';
    if (g.bodyShape === 'no params') delete message.params;
    if (g.bodyShape === 'tools/list') message.method = listing ? 'tools/call' : 'tools/list';
    if (g.bodyShape === 'notification') delete message.id;
    const body = g.bodyShape === 'batch of one' ? [message] : message;

    const headers: Record<string, string | string[]> = { 'content-type': g.contentType };
    if (g.accept !== undefined) headers.accept = g.accept;
    const version = { 'other version': modern ? '2025-11-25' : MODERN, 'unsupported version': '2024-01-01' }[g.headerVariant as string] ?? g.revision;
    if (version !== undefined && g.headerVariant !== 'no version') headers['mcp-protocol-version'] = version;
    if (modern) {
      if (g.headerVariant !== 'no method') headers['mcp-method'] = g.headerVariant === 'wrong method' ? 'tools/list' : String(message.method);
      const name = listing ? 'products.search' : g.call.name;
      // A list names nothing: Mcp-Name only as a variant.
      if (g.headerVariant !== 'no name' && (!listing || g.headerVariant !== 'canonical')) {
        headers['mcp-name'] = {
          'wrong name': 'products.other',
          'base64 name': `=?base64?${Buffer.from(name).toString('base64')}?=`,
          'padded name': ` ${name}\t`,
        }[g.headerVariant as string] ?? name;
      }
      if (g.headerVariant === 'twice') headers['mcp-name'] = [name, name];
    }
    if (g.headerVariant === 'upper-case names') {
      for (const [name, value] of Object.entries(headers)) {
        delete headers[name];
        headers[name.toUpperCase()] = value;
      }
    }
    return { headers, payload: JSON.stringify(body), caller: g.caller, path: g.path };
  });

// ---- properties -------------------------------------------------------------------------------------------------

const seed = process.env.DIRECT_CALL_SEED ? Number(process.env.DIRECT_CALL_SEED) : Date.now() % 2 ** 31;
const numRuns = Number(process.env.DIRECT_CALL_RUNS ?? 300);

describe('tools/call with the direct path on and off', () => {
  it('answers every canonical call of every revision with the same bytes, without building an SDK server', async () => {
    const key = (s: Side) => ({ authorization: `Bearer ${s.keys['all scopes']}` });
    for (const version of [MODERN, ...LEGACY, undefined]) {
      const modern = version === MODERN;
      const body = {
        jsonrpc: '2.0', id: 3, method: 'tools/call',
        params: { name: 'products.get', arguments: { slug: 'diff-base' }, ...(modern ? { _meta: ENVELOPE } : {}) },
      };
      const headers = {
        'content-type': 'application/json', accept: 'application/json, text/event-stream',
        ...(version ? { 'mcp-protocol-version': version } : {}),
        ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'products.get' } : {}),
      };
      const answers = [];
      for (const s of [on, off]) {
        const before = sdk.servers;
        const res = await s.t.app.inject({ method: 'POST', url: '/api/mcp', headers: { ...key(s), ...headers }, payload: JSON.stringify(body) });
        answers.push({ status: res.statusCode, type: res.headers['content-type'], body: normalised(res.body), servers: sdk.servers - before });
      }
      expect(answers[0].status, String(version)).toBe(200);
      expect(JSON.parse(answers[0].body).result.structuredContent).toMatchObject({ ok: true, result: { slug: 'diff-base' } });
      expect({ ...answers[0], servers: 0 }).toEqual({ ...answers[1], servers: 0 });
      expect([answers[0].servers, answers[1].servers], String(version)).toEqual([0, 1]);
    }
  });

  it('answers tools/list of every revision and caller with the same bytes, without building an SDK server', async () => {
    for (const version of [MODERN, ...LEGACY, undefined]) {
      for (const caller of ['all scopes', 'catalog only', 'anonymous'] as const) {
        const modern = version === MODERN;
        const body = { jsonrpc: '2.0', id: 'list', method: 'tools/list', ...(modern ? { params: { _meta: ENVELOPE } } : {}) };
        const headers = {
          'content-type': 'application/json', accept: 'application/json, text/event-stream',
          ...(version ? { 'mcp-protocol-version': version } : {}),
          ...(modern ? { 'mcp-method': 'tools/list' } : {}),
        };
        const answers = [];
        for (const s of [on, off]) {
          const r = await send(s, { headers, payload: JSON.stringify(body), caller, path: '/api/mcp' });
          answers.push({ status: r.res.statusCode, type: r.res.headers['content-type'], body: r.res.body, servers: r.servers });
        }
        const label = `${String(version)} ${caller}`;
        expect(answers[0].status, label).toBe(200);
        expect(JSON.parse(answers[0].body).result.tools.length, label).toBeGreaterThanOrEqual(caller === 'all scopes' ? 40 : 5);
        expect({ ...answers[0], servers: 0 }, label).toEqual({ ...answers[1], servers: 0 });
        expect([answers[0].servers, answers[1].servers], label).toEqual([0, 1]);
      }
    }
  });

  it('answers a write and its idempotent replay with the same bytes in every revision, without an SDK server', async () => {
    for (const version of [MODERN, ...LEGACY]) {
      const modern = version === MODERN;
      const slugOf = `replay-${version}`;
      const body = {
        jsonrpc: '2.0', id: `w-${version}`, method: 'tools/call',
        params: {
          name: 'products.create',
          arguments: { name: 'Replayed', slug: slugOf, description: 'Sent twice.', priceDkk: 1_000, stock: 1 },
          _meta: { ...(modern ? ENVELOPE : {}), idempotencyKey: `replay-key-${version}` },
        },
      };
      const headers = {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version,
        ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'products.create' } : {}),
      };
      for (const attempt of ['first', 'replay']) {
        const answers = [];
        for (const s of [on, off]) {
          const before = sdk.servers;
          const res = await s.t.app.inject({ method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${s.keys['all scopes']}`, ...headers }, payload: JSON.stringify(body) });
          answers.push({ status: res.statusCode, body: normalised(res.body), servers: sdk.servers - before });
        }
        const { result } = JSON.parse(answers[0].body) as { result: { _meta?: Record<string, unknown> } };
        expect(result._meta?.idempotentReplayed, `${version} ${attempt}`).toBe(attempt === 'replay' ? true : undefined);
        expect(answers[0].body, `${version} ${attempt}`).toBe(answers[1].body);
        expect([answers[0].servers, answers[1].servers]).toEqual([0, 1]);
      }
    }
  });

  it.each(['2026-07-28', 'legacy'] as const)('serves the SDK v2 Client\u2019s calls (era %s) through the direct path', async (era) => {
    const client = new Client({ name: 'differential', version: '1.0.0' }, era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${onBase}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${on.keys['all scopes']}` } },
      }),
    );
    try {
      const before = sdk.servers;
      const found = await client.callTool({ name: 'products.get', arguments: { slug: 'diff-base' } });
      const refused = await client.callTool({ name: 'products.get', arguments: { slug: 7 } });
      expect(sdk.servers - before).toBe(0);
      expect(found.structuredContent).toMatchObject({ ok: true, result: { slug: 'diff-base' } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it(`agrees with the SDK on ${numRuns} generated requests (seed ${seed})`, async () => {
    let direct = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const a = await send(on, r);
        const b = await send(off, r);
        if (a.servers === 0 && b.servers > 0) direct++;
        expect(comparable(a.res), `${JSON.stringify(r)}`).toEqual(comparable(b.res));
      }),
      { seed, numRuns, path: process.env.DIRECT_CALL_PATH, endOnFailure: true },
    );
    console.log(`direct path: ${direct} of ${numRuns} generated requests answered without the SDK (seed ${seed})`);
    // The generators are canonical often enough that the path is really exercised, and odd often enough that most
    // requests are not its to answer.
    expect(direct).toBeGreaterThan(numRuns / 20);
    expect(direct).toBeLessThan(numRuns * 0.75);
  }, 120_000);

  it('leaves both databases in the same state', async () => {
    const rows = async (s: Side) => ({
      products: await s.t.db.product.findMany({ select: { slug: true, name: true, stock: true, deletedAt: true }, orderBy: { slug: 'asc' } }),
      audit: await s.t.db.auditEntry.count(),
      idempotency: await s.t.db.idempotencyRecord.count(),
    });
    const [a, b] = [await rows(on), await rows(off)];
    const deleted = (r: typeof a) => ({ ...r, products: r.products.map((p) => ({ ...p, deletedAt: p.deletedAt !== null })) });
    expect(deleted(a)).toEqual(deleted(b));
  });
});
