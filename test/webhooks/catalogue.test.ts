// The event catalogue is derived from the registry: every audited entity type has events, every write emits some,
// and OpenAPI's webhooks and /docs list exactly the catalogue.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_DEFINITIONS, EVENT_FAMILIES, entityTypesWithoutEvents, eventTypesOf, readScopesOfSubscription } from '../../src/events/catalogue.ts';
import { buildDocument } from '../../src/openapi/build-document.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const writes = TOOLS.filter((tool) => tool.write);

it('every entity type a tool audits has events (or is a documented silent one)', () => {
  expect(entityTypesWithoutEvents(writes.flatMap((tool) => [...tool.auditedTypes]))).toEqual([]);
});

it('every write tool emits at least one event type, except webhooks.redeliver (it re-sends an existing event)', () => {
  const silent = writes.filter((tool) => eventTypesOf(tool).length === 0).map((tool) => tool.name);
  expect(silent).toEqual(['webhooks.redeliver']);
});

it('every event type is emitted by some tool or by the delivery worker', () => {
  const emitted = new Set(writes.flatMap(eventTypesOf));
  expect(EVENT_DEFINITIONS.map((d) => d.type).filter((type) => !emitted.has(type))).toEqual([]);
});

it('OpenAPI lists the catalogue under webhooks and each write’s events under x-events', () => {
  const doc = buildDocument(TOOLS);
  expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual(EVENT_DEFINITIONS.map((d) => d.type).sort());
  for (const tool of writes) expect(doc.paths?.[`/api/v1/tools/${tool.name}`]?.post?.['x-events' as never]).toEqual(eventTypesOf(tool));
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

it('every event type is published with its family and the read scopes its payload exposes', () => {
  const webhooks = buildDocument(TOOLS).webhooks ?? {};
  const published = Object.fromEntries(
    Object.entries(webhooks).map(([type, item]) => {
      const post = (item as { post: Record<string, unknown> }).post;
      return [type, { family: post['x-event-family'], scopes: post['x-required-scopes'] }];
    }),
  );
  for (const d of EVENT_DEFINITIONS) expect(published[d.type], d.type).toEqual({ family: d.family, scopes: [...EVENT_FAMILIES[d.family].reads] });
  // Order and cart payloads carry customers' contact details; the catalogue and settings feeds do not.
  for (const type of ['order.created', 'order.status_changed', 'cart.created', 'cart.updated']) expect(published[type].scopes).toEqual(['orders:read', 'customer:read']);
  expect(published['product.stock_changed'].scopes).toEqual(['catalog:read']);
  expect(published['audit.reverted'].scopes).toEqual(['audit:read']);
  expect(readScopesOfSubscription(['order.*'])).toEqual(['customer:read', 'orders:read']);
  expect(readScopesOfSubscription(['*'])).toEqual([...new Set(Object.values(EVENT_FAMILIES).flatMap((f) => f.reads))].sort());
});

it('the served reference (/openapi.json, rendered at /docs) has every event with its payload, and names each write’s events', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: unknown } } } } }>;
    paths: Record<string, { post: { description: string } }>;
  };
  for (const d of EVENT_DEFINITIONS) {
    expect(JSON.stringify(doc.webhooks[d.type].post.requestBody.content['application/json'].schema), d.type).toContain('"sequence"');
  }
  expect(doc.paths['/api/v1/tools/products.create'].post.description).toMatch(/Emits `product\.created`/);
});
