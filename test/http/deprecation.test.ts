// Versioning (docs/contract.md; docs/robustness.md row 38): a tool marked deprecated in the registry answers with
// Deprecation (RFC 9745), Sunset (RFC 8594) and Link headers, OpenAPI marks it deprecated and MCP says so. The
// deprecated tool exists only in this test.
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMcpCatalog } from '../../src/mcp/tool-catalog.ts';
import { buildDocument, withServer } from '../../src/openapi/build-document.ts';
import { defineTool } from '../../src/registry/define-tool.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const SINCE = new Date('2026-01-01T00:00:00Z');
const SUNSET = new Date('2026-06-30T23:59:59Z');
const GUIDE = 'https://docs.example.com/migrations/catalog.legacy_count';

const legacyCount = defineTool({
  name: 'catalog.legacy_count',
  title: 'Count products (legacy)',
  description: 'Counts live products. Use products.search instead.',
  scope: 'catalog:read',
  anonymous: true,
  input: z.strictObject({}),
  output: z.object({ count: z.number().int().min(0) }),
  kind: 'read',
  errors: [],
  deprecated: { since: SINCE, sunset: SUNSET, link: GUIDE },
  handler: async (_input, ctx) => ({ count: await ctx.db.product.count({ where: { deletedAt: null } }) }),
});
const tools = [...TOOLS, legacyCount];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ tools });
});
afterAll(async () => {
  await t?.close();
});

describe('POST /api/v1/tools/catalog.legacy_count (deprecated)', () => {
  it('still works and carries Deprecation, Sunset and Link headers', async () => {
    const res = await t.call('catalog.legacy_count', {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, result: { count: expect.any(Number) } });
    expect(res.headers.deprecation).toBe(`@${SINCE.getTime() / 1000}`);
    expect(res.headers.sunset).toBe('Tue, 30 Jun 2026 23:59:59 GMT');
    expect(new Date(String(res.headers.sunset)).getTime()).toBeGreaterThanOrEqual(SINCE.getTime());
    expect(res.headers.link).toBe(`<${GUIDE}>; rel="deprecation"; type="text/html"`);
  });

  it('leaves tools that are not deprecated without those headers', async () => {
    const res = await t.call('categories.list', {});
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });

  it('is marked deprecated in the OpenAPI document, with the headers declared', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc).toEqual(JSON.parse(JSON.stringify(withServer(buildDocument(tools), doc.servers[0].url))));
    const op = doc.paths['/api/v1/tools/catalog.legacy_count'].post;
    expect(op.deprecated).toBe(true);
    expect(op.description).toContain('Deprecated since 2026-01-01; sunset 2026-06-30');
    expect(Object.keys(op.responses['200'].headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    expect(doc.paths['/api/v1/tools/categories.list'].post.deprecated).toBeUndefined();
  });

  it('says deprecated, with the sunset date, in its MCP description', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const listed = res.json().result.tools.find((tool: { name: string }) => tool.name === 'catalog.legacy_count');
    expect(listed.description).toMatch(/^Deprecated since 2026-01-01; sunset 2026-06-30 .*Tue, 30 Jun 2026 23:59:59 GMT.*migrations\/catalog\.legacy_count/);
    expect(buildMcpCatalog(tools).get('categories.list')!.definition('shared').description).not.toMatch(/Deprecated/);
  });
});
