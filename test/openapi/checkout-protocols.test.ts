// The checkout protocols' OpenAPI document (src/openapi/checkout-protocols.ts, docs/agentic-checkout.md): valid
// OpenAPI 3.1, committed up to date as openapi/checkout.json (`npm run openapi`), one tag per protocol, every
// operation a route the service answers, served with the caller's origin and linked from the API catalog.
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCheckoutDocument } from '../../src/openapi/checkout-protocols.ts';
import { CHECKOUT_OPENAPI_FILE, serializeDocument } from '../../src/openapi/write.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

type Json = Record<string, any>;
const doc = buildCheckoutDocument() as Json;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).filter(([m]) => METHODS.includes(m)).map(([method, op]) => ({ path, method, op: op as Json })));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('openapi/checkout.json', () => {
  it('is valid OpenAPI 3.1 and committed up to date (run `npm run openapi`)', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(readFileSync(CHECKOUT_OPENAPI_FILE, 'utf8')).toBe(serializeDocument(doc));
  });

  it('tags every ACP operation acp and every UCP operation ucp, each with the protocol’s error shape', () => {
    expect(doc.tags.map((tag: Json) => tag.name)).toEqual(['acp', 'ucp']);
    expect(operations.length).toBe(12);
    for (const { path, op } of operations) {
      const tag = path.split('/')[1];
      expect(op.tags, path).toEqual([tag]);
      expect(op.responses['429'].content['application/json'].schema.$ref, path).toBe(`#/components/schemas/${tag === 'acp' ? 'AcpError' : 'UcpErrorResponse'}`);
      // Recording on a UCP order is the business's write (reading 17): orders:write; every other operation is a platform's.
      expect(op.security).toEqual([{ bearerAuth: [op.operationId === 'ucp.updateOrder' ? 'orders:write' : 'checkout:agent'] }]);
    }
  });

  it('names only routes the service answers', () => {
    for (const { path, method } of operations) {
      expect(t.app.hasRoute({ method: method.toUpperCase() as 'GET', url: path.replace(/\{(\w+)\}/g, ':id') }), `${method} ${path}`).toBe(true);
    }
  });

  it('is served with the caller’s origin as its server', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi/checkout.json', headers: { host: 'shop.test' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.oai.openapi+json;version=3.1');
    expect(res.json().servers).toEqual([{ url: 'http://shop.test', description: 'This service.' }]);
    expect(res.json().paths).toEqual(doc.paths);
  });
});
