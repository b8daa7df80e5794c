// Error responses (docs/errors.md; docs/robustness.md rows 1–7, 33): every failure is application/problem+json
// with exactly the documented members (RFC 9457 + code/resolution + legacy ok/error), and never reveals internals.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/errors.ts';
import { defineTool } from '../../src/registry/define-tool.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { assertNothingInternal, expectProblem } from '../helpers/problem.ts';

const SEARCH = '/api/v1/tools/products.search';

// Tools that fail unexpectedly, to prove a 500 carries nothing internal.
const failingTools = [
  defineTool({
    name: 'test.throws',
    title: 'Throws',
    description: 'Throws an error whose message holds SQL and a file path.',
    scope: 'catalog:read',
    anonymous: true,
    input: z.strictObject({}),
    output: z.object({}),
    kind: 'read',
    errors: [],
    handler: async () => {
      throw new Error('SELECT * FROM "Product" failed at /work/main/src/tools/products.ts:12:3');
    },
  }),
  defineTool({
    name: 'test.bad_sql',
    title: 'Bad SQL',
    description: 'Sends invalid SQL to PostgreSQL.',
    scope: 'catalog:read',
    anonymous: true,
    input: z.strictObject({}),
    output: z.object({}),
    kind: 'read',
    errors: [],
    handler: async (_input, ctx) => {
      await ctx.db.$queryRawUnsafe('SELECT no_such_column FROM "Product"');
      return {};
    },
  }),
  defineTool({
    name: 'test.bad_output',
    title: 'Bad output',
    description: 'Returns something its output schema rejects.',
    scope: 'catalog:read',
    anonymous: true,
    input: z.strictObject({}),
    output: z.object({ n: z.number() }),
    kind: 'read',
    errors: [],
    handler: async () => ({ n: 'not a number' }) as unknown as { n: number },
  }),
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { BODY_LIMIT_BYTES: '2048' }, tools: [...TOOLS, ...failingTools] });
});
afterAll(async () => {
  await t?.close();
});

const post = (payload: string | undefined, headers: Record<string, string> = { 'content-type': 'application/json' }, url = SEARCH) =>
  t.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });

describe('problem+json bodies', () => {
  it('POST /api/v1/tools/products.search with Content-Type text/plain is 415 unsupported_media_type', async () => {
    const res = await post('{"q":"x"}', { 'content-type': 'text/plain' });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('POST /api/v1/tools/products.search with other non-JSON media types is 415', async () => {
    for (const type of [
      'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'application/jsonx',
      'application/vnd.api+json', 'text/plain; application/json', 'application/json, text/plain',
    ]) {
      expectProblem(await post('q=x', { 'content-type': type }), 415, 'unsupported_media_type');
    }
  });

  it('application/json is accepted with parameters and in any case', async () => {
    for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json ;charset=utf-8']) {
      const res = await post('{}', { 'content-type': type });
      expect(res.statusCode, `${type}: ${res.body}`).toBe(200);
    }
  });

  it('a JSON integer beyond 2^53 (9007199254740993, read as …992) is 400, not rounded into range', async () => {
    const body = expectProblem(await post('{"minPriceOere":9007199254740993}'), 400, 'invalid_request');
    expect(body.detail).toContain('minPriceOere');
  });

  it('POST /api/v1/tools/products.search with an empty application/json body is 400', async () => {
    const body = expectProblem(await post(''), 400);
    expect(['invalid_body', 'invalid_json']).toContain(body.code);
  });

  it('POST /api/v1/tools/products.search with truncated JSON is 400 invalid_json', async () => {
    const body = expectProblem(await post('{"q":'), 400, 'invalid_json');
    expect(body.title).toBe(PROBLEMS.invalid_json.title);
    expect(body.resolution).toBe(PROBLEMS.invalid_json.resolution);
  });

  it.each(['[1]', '"x"', 'null', '42', 'true', '[]'])('POST /api/v1/tools/products.search with body %s is 400 invalid_body', async (payload) => {
    expectProblem(await post(payload), 400, 'invalid_body');
  });

  it('POST /api/v1/tools/products.search with no body and no Content-Type is 400 invalid_body', async () => {
    expectProblem(await post(undefined, {}), 400, 'invalid_body');
  });

  it('POST /api/v1/tools/products.search with {} is 200 (an empty object is the minimum body)', async () => {
    const res = await post('{}');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, result: [] });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('POST /api/v1/tools/products.search with a "__proto__" or "constructor.prototype" key is 400', async () => {
    expectProblem(await post('{"__proto__":{"x":1}}'), 400);
    expectProblem(await post('{"constructor":{"prototype":{"x":1}}}'), 400);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('POST /api/v1/tools/products.search with a body over BODY_LIMIT_BYTES is 413 payload_too_large', async () => {
    const res = await post(JSON.stringify({ q: 'x'.repeat(3000) }));
    expectProblem(res, 413, 'payload_too_large');
    // Just under the limit is parsed (and then refused by the schema, not by size).
    const under = await post(JSON.stringify({ q: 'x'.repeat(1900) }));
    expectProblem(under, 400, 'invalid_request');
  });

  it('POST /api/v1/tools/products.search with an unknown field is 400 invalid_request naming it', async () => {
    const body = expectProblem(await post('{"q":"x","extra":1}'), 400, 'invalid_request');
    expect(body.detail).toContain('"extra"');
  });

  it('POST /api/v1/tools/no.such_tool is 404 unknown_tool', async () => {
    const body = expectProblem(await post('{}', undefined, '/api/v1/tools/no.such_tool'), 404, 'unknown_tool');
    expect(body.detail).toContain('no.such_tool');
    expect(body.instance).toMatch(/^\/api\/v1\/tools\/no\.such_tool#req-/);
  });

  it('GET /api/v1/tools/products.search is 405 with Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await t.app.inject({ method, url: SEARCH });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe('POST');
    }
  });

  it('checks the method before the key: TRACE and others on a tool are 405 with a bad, a valid or no key', async () => {
    const valid = await t.key();
    for (const authorization of ['Bearer aak_not_a_key', 'Basic eDp5', `Bearer ${valid}`, undefined]) {
      for (const method of ['TRACE', 'GET', 'DELETE', 'OPTIONS'] as const) {
        const res = await t.app.inject({ method, url: '/api/v1/tools/products.delete', headers: authorization ? { authorization } : {} });
        expectProblem(res, 405, 'method_not_allowed');
        expect(res.headers.allow).toBe('POST');
      }
    }
  });

  it('GET /api/v1/tools/no.such_tool is 404 unknown_tool', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/v1/tools/no.such_tool' }), 404, 'unknown_tool');
  });

  it('an unknown route is 404 not_found (outside /api/, for a client that asks for JSON; browsers get the HTML 404 page)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nothing/here?x=1', headers: { accept: 'application/json' } });
    const body = expectProblem(res, 404, 'not_found');
    expect(body.instance).toMatch(/^\/nothing\/here#req-/);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/v2/tools/products.search', payload: {} }), 404, 'not_found');
  });

  it('the instance names the request id that X-Request-Id carries', async () => {
    const res = await post('[1]');
    const body = expectProblem(res, 400, 'invalid_body');
    expect(body.instance).toBe(`${SEARCH}#req-${res.headers['x-request-id']}`);
  });

  it('an unexpected error is 500 internal_error without its message, SQL, stack or file path', async () => {
    for (const name of ['test.throws', 'test.bad_sql', 'test.bad_output']) {
      const res = await post('{}', undefined, `/api/v1/tools/${name}`);
      const body = expectProblem(res, 500, 'internal_error');
      expect(body.detail).toBe('An unexpected error occurred.');
      expect(res.body).not.toContain('no_such_column');
      expect(res.body).not.toContain('not a number');
    }
  });

  it('no 4xx body reveals a stack, SQL or a file path, whatever the input', async () => {
    const key = await t.key();
    const cases = [
      () => post('{"q":"\u0000"}'),
      () => post('{"limit":1e400}'),
      () => post('{"q":"x"'),
      () => t.call('products.create', { name: 'x' }, key),
      () => t.call('products.create', { name: 'Name', slug: 'BAD SLUG', description: 'long enough text', priceDkk: -1, stock: 1.5 }, key),
      () => t.call('products.get', { slug: 'missing' }),
      () => t.call('products.update', { slug: 'missing', patch: { name: 'New name' } }, key),
      () => t.call('audit.list', { cursor: 'garbage' }, key),
      () => t.call('products.delete', { slug: 'missing', confirm: true }, key),
    ];
    for (const make of cases) {
      const res = await make();
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      assertNothingInternal(res.body);
    }
  });
});

describe('docs/errors.md', () => {
  it('has one row per problem code of src/errors.ts, with its exact status, title and resolution', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| ([^|]+) \| [^|]+ \| ([^|]+) \|$/gm)];
    const documented = Object.fromEntries(rows.map(([, code, status, title, resolution]) => [code, { status: Number(status), title, resolution }]));
    expect(rows).toHaveLength(Object.keys(documented).length);
    expect(Object.keys(PROBLEMS).length).toBeGreaterThan(20);
    expect(documented).toEqual(PROBLEMS);
  });
});
