// The OpenAPI 3.1 document: generated from the registry, valid OpenAPI 3.1, committed as openapi/openapi.json
// (this test fails while that copy is stale: run `npm run openapi`). Each operation's error responses name exactly
// the problem codes its tool can answer with (docs/errors.md).
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/errors.ts';
import { buildDocument } from '../../src/openapi/build-document.ts';
import { OPENAPI_FILE, serializeDocument } from '../../src/openapi/write.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { ALWAYS_DECLARED_STATUSES, problemCodesByStatus } from '../../src/registry/tool-problems.ts';
import { TOOLS } from '../../src/tools/index.ts';

const doc = buildDocument(TOOLS);
type Json = Record<string, any>;
const json = doc as unknown as Json;
const op = (name: string): Json => json.paths[`/api/v1/tools/${name}`].post;
const resolve = (r: Json): Json => (r.$ref ? json.components.responses[String(r.$ref).split('/').pop()!] : r);

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

  it('describes every tag (one per tool domain) and names a server', () => {
    expect(doc.tags?.map((tag) => tag.name)).toEqual([...new Set(TOOLS.map((tool) => tool.name.split('.')[0])), 'events']);
    for (const tag of doc.tags ?? []) expect(tag.description, tag.name).toMatch(/\w/);
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
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

  it('declares the statuses every tool keeps, plus only the statuses its own codes add', () => {
    for (const tool of TOOLS) {
      const statuses = Object.keys(op(tool.name).responses).filter((s) => s !== '200').map(Number);
      expect(statuses, tool.name).toEqual(expect.arrayContaining([...ALWAYS_DECLARED_STATUSES]));
      expect(statuses.sort(), tool.name).toEqual([...problemCodesByStatus(tool).keys()].sort());
    }
    // The anonymous catalog search can never answer 404 or 409, nor a cart or slug problem.
    const search = op('products.search').responses;
    expect(Object.keys(search)).not.toContain('404');
    expect(Object.keys(search)).not.toContain('409');
    expect(JSON.stringify(Object.values(search as Record<string, Json>).map(resolve))).not.toMatch(/slug_immutable|empty_cart|confirmation_required/);
  });

  it('lists under each status exactly the problem codes the tool declares or every call can meet, as problem+json', () => {
    for (const tool of TOOLS) {
      for (const [status, codes] of problemCodesByStatus(tool)) {
        const response = resolve(op(tool.name).responses[String(status)]);
        expect(response.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/ProblemDetails' });
        const listed = [...String(response.description).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
        expect(listed.sort(), `${tool.name} ${status}`).toEqual([...codes].sort());
      }
    }
    const responses = json.components.responses;
    expect(Object.keys(responses.TooManyRequests.headers)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit']));
    expect(Object.keys(responses.ServiceUnavailable.headers)).toEqual(['Retry-After']);
    expect(Object.keys(responses.Unauthorized.headers)).toEqual(['WWW-Authenticate']);
  });

  it('flags reversible operations with x-reversible and the generated sentence', () => {
    for (const tool of TOOLS) {
      const reversible = tool.reversible.length > 0;
      expect(op(tool.name)['x-reversible'], tool.name).toBe(reversible);
      expect(op(tool.name).description.includes('Reversible with audit.revert.'), tool.name).toBe(reversible);
    }
  });

  it('describes problem details with exactly the documented members and every code', () => {
    const problem = json.components.schemas.ProblemDetails;
    expect(Object.keys(problem.properties).sort()).toEqual(['code', 'detail', 'error', 'instance', 'ok', 'resolution', 'status', 'title', 'type']);
    expect(problem.properties.code.enum).toEqual(Object.keys(PROBLEMS));
    expect(problem.required.sort()).toEqual(Object.keys(problem.properties).sort());
  });
});
