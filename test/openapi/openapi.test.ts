// The OpenAPI 3.1 document (spec §1, §4, §7, §8; design.md §1, §4): generated from the registry, valid OpenAPI 3.1,
// committed as openapi/openapi.json (this test fails while that copy is stale: run `npm run openapi`).
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/errors.ts';
import { buildDocument } from '../../src/openapi/build-document.ts';
import { OPENAPI_FILE, serializeDocument } from '../../src/openapi/write.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';

const doc = buildDocument(TOOLS);
type Json = Record<string, any>;
const json = doc as unknown as Json;
const op = (name: string): Json => json.paths[`/api/v1/tools/${name}`].post;
const ERROR_STATUSES = ['400', '401', '403', '404', '409', '413', '415', '422', '429', '500', '503'];

describe('openapi/openapi.json', () => {
  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(json) as never)).resolves.toBeTruthy();
  });

  it('is committed up to date (run `npm run openapi` after changing a tool)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(serializeDocument(doc));
  });

  it('is deterministic', () => {
    expect(serializeDocument(buildDocument(TOOLS))).toBe(serializeDocument(doc));
  });

  it("is titled 'Agent API', version 1.0.0, licensed MIT", () => {
    expect(doc.info).toMatchObject({ title: 'Agent API', version: '1.0.0', license: { name: 'MIT', identifier: 'MIT' } });
  });
});

describe('operations', () => {
  it('has exactly one POST per tool, operationId = tool name, summary = title', () => {
    expect(Object.keys(json.paths).sort()).toEqual(TOOLS.map((t) => `/api/v1/tools/${t.name}`).sort());
    for (const tool of TOOLS) {
      expect(Object.keys(json.paths[`/api/v1/tools/${tool.name}`])).toEqual(['post']);
      expect(op(tool.name)).toMatchObject({ operationId: tool.name, summary: tool.title });
      expect(op(tool.name).description).toContain(tool.description);
    }
  });

  it('declares each operation’s scope; anonymous operations also accept no credentials', () => {
    expect(json.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const tool of TOOLS) {
      expect(SCOPES).toContain(tool.scope);
      expect(op(tool.name)['x-required-scope']).toBe(tool.scope);
      expect(op(tool.name)['x-anonymous']).toBe(tool.anonymous);
      expect(op(tool.name).security).toEqual(tool.anonymous ? [{ bearerAuth: [tool.scope] }, {}] : [{ bearerAuth: [tool.scope] }]);
    }
    const anonymous = TOOLS.filter((t) => t.anonymous).map((t) => t.name).sort();
    expect(anonymous).toEqual(['categories.list', 'products.get', 'products.search', 'site.get_page', 'site.list_pages']);
  });

  it('takes the tool’s input as a required JSON body, unknown fields refused', () => {
    const body = op('products.create').requestBody;
    expect(body.required).toBe(true);
    const schema = body.content['application/json'].schema;
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'slug', 'description', 'priceDkk', 'stock']));
    expect(schema.properties.dryRun).toMatchObject({ type: 'boolean' });
    expect(op('products.delete').requestBody.content['application/json'].schema.properties.confirm).toMatchObject({ enum: [true] });
  });

  it('answers 200 with {ok: true, result} and the rate-limit headers; write tools document the dry-run fields', () => {
    for (const tool of TOOLS) {
      const ok = op(tool.name).responses['200'];
      const schema = ok.content['application/json'].schema;
      expect(schema.required).toEqual(['ok', 'result']);
      expect(schema.properties.ok).toMatchObject({ enum: [true] });
      expect(Object.keys(ok.headers)).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
      if (tool.write) {
        expect(schema.properties.changes.items).toEqual({ $ref: '#/components/schemas/Change' });
        expect(op(tool.name).parameters).toEqual([{ $ref: '#/components/parameters/IdempotencyKey' }]);
      } else {
        expect(schema.properties.dryRun).toBeUndefined();
      }
    }
  });

  it('declares the six spec error statuses and the additive ones as problem+json', () => {
    for (const tool of TOOLS) expect(Object.keys(op(tool.name).responses).sort()).toEqual(['200', ...ERROR_STATUSES].sort());
    const responses = json.components.responses;
    for (const status of ERROR_STATUSES) {
      const ref: string = op('products.search').responses[status].$ref;
      const response = responses[ref.split('/').pop()!];
      expect(response.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/ProblemDetails' });
      for (const [code, p] of Object.entries(PROBLEMS)) if (String(p.status) === status) expect(response.description).toContain(`\`${code}\``);
    }
    expect(Object.keys(responses.TooManyRequests.headers)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit']));
    expect(Object.keys(responses.ServiceUnavailable.headers)).toEqual(['Retry-After']);
    expect(Object.keys(responses.Unauthorized.headers)).toEqual(['WWW-Authenticate']);
  });

  it('describes problem details with exactly the spec’s fields and every code', () => {
    const problem = json.components.schemas.ProblemDetails;
    expect(Object.keys(problem.properties).sort()).toEqual(['code', 'detail', 'error', 'instance', 'ok', 'resolution', 'status', 'title', 'type']);
    expect(problem.properties.code.enum).toEqual(Object.keys(PROBLEMS));
    expect(problem.required.sort()).toEqual(Object.keys(problem.properties).sort());
  });
});
