// Events from writes, delivered to a local receiver and verified with the official standardwebhooks package.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SCHEMAS } from '../../src/events/catalogue.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/events/delivery-worker.ts';
import { serviceSafeFetch } from '../../src/outbound/service-client.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, verifiedWith, type Receiver } from './receiver.ts';

let t: TestApp;
let key: string;
let receiver: Receiver;
let worker: DeliveryWorker;
let secret: string;

const product = (slug: string) => ({ name: 'Round frames', slug, description: 'Round acetate frames.', priceDkk: 49_900, stock: 5 });

beforeAll(async () => {
  t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: '1', WEBHOOK_POLL_INTERVAL: '20ms' } });
  key = await t.key();
  receiver = await startReceiver();
  worker = startDeliveryWorker({ db: t.db, config: t.config, log: t.app.log, fetch: serviceSafeFetch(t.config), secrets: t.secrets });
  const res = await t.call('webhooks.create', { url: receiver.url, events: ['product.*', 'audit.reverted'] }, key);
  expect(res.statusCode, res.body).toBe(200);
  secret = res.json().result.secret;
});

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
});

describe('events of writes', () => {
  it('delivers product.created, signed, in the published schema, with sequence 1', async () => {
    const res = await t.call('products.create', product('ev-one'), key);
    expect(res.statusCode, res.body).toBe(200);
    const [d] = await receiver.waitFor(1, (x) => x.payload.type === 'product.created' && x.payload.data.entityId === res.json().result.id);
    expect(verifiedWith(d, secret)).toBe(true);
    expect(d.id).toBe(d.payload.id);
    expect(EVENT_SCHEMAS.get('product.created')!.safeParse(d.payload).success).toBe(true);
    expect(d.payload.data).toMatchObject({ entityType: 'product', sequence: 1, changedFields: [], object: { slug: 'ev-one', stock: 5 } });
  });

  it('an update that changes stock emits product.updated and product.stock_changed with one sequence and the previous values', async () => {
    const res = await t.call('products.update', { slug: 'ev-one', patch: { stock: 7 } }, key);
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().result.id;
    const got = await receiver.waitFor(2, (x) => x.payload.data.entityId === id && x.payload.data.sequence === 2);
    expect(got.map((d) => d.payload.type).sort()).toEqual(['product.stock_changed', 'product.updated']);
    for (const d of got) {
      expect(d.payload.data).toMatchObject({ changedFields: ['stock'], previousValues: { stock: 5 }, object: { stock: 7 } });
      expect(EVENT_SCHEMAS.get(d.payload.type)!.safeParse(d.payload).success).toBe(true);
    }
  });
});

describe('the outbox follows the transaction', () => {
  const eventCount = () => t.db.webhookEvent.count();

  it('a dry run emits nothing', async () => {
    const before = await eventCount();
    const res = await t.call('products.create', { ...product('ev-dry'), dryRun: true }, key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().dryRun).toBe(true);
    expect(await eventCount()).toBe(before);
  });

  it('a write that fails emits nothing', async () => {
    const before = await eventCount();
    const res = await t.call('products.create', product('ev-one'), key);
    expect(res.statusCode).toBe(409);
    expect(await eventCount()).toBe(before);
  });

  it('an update that changes nothing emits nothing', async () => {
    const before = await eventCount();
    const res = await t.call('products.update', { slug: 'ev-one', patch: { stock: 7 } }, key);
    expect(res.statusCode, res.body).toBe(200);
    expect(await eventCount()).toBe(before);
  });

  it('an audit.revert emits the entity’s own event and audit.reverted with the next sequence', async () => {
    const entry = await t.db.auditEntry.findFirstOrThrow({ where: { tool: 'products.update' }, orderBy: { at: 'asc' } });
    const res = await t.call('audit.revert', { auditId: entry.id, confirm: true }, key);
    expect(res.statusCode, res.body).toBe(200);
    const got = await receiver.waitFor(3, (x) => x.payload.data.entityId === entry.entityId && x.payload.data.sequence === 3);
    expect(got.map((d) => d.payload.type).sort()).toEqual(['audit.reverted', 'product.stock_changed', 'product.updated']);
    const reverted = got.find((d) => d.payload.type === 'audit.reverted')!;
    expect(reverted.payload.data).toMatchObject({ revertedEntryId: entry.id, object: { stock: 5 }, previousValues: { stock: 7 } });
    expect(EVENT_SCHEMAS.get('audit.reverted')!.safeParse(reverted.payload).success).toBe(true);
  });
});

describe('subscriptions', () => {
  it('an endpoint receives only the types and wildcards it subscribed to', async () => {
    const orders = await startReceiver();
    try {
      const res = await t.call('webhooks.create', { url: orders.url, events: ['category.*', 'settings.updated'] }, key);
      expect(res.statusCode, res.body).toBe(200);
      await t.call('categories.upsert', { slug: 'ev-cat', name: 'Event category' }, key);
      await t.call('settings.update', { shopName: 'Evented shop' }, key);
      await t.call('products.update', { slug: 'ev-one', patch: { name: 'Only for the first endpoint' } }, key);
      const got = await orders.waitFor(2);
      await new Promise((r) => setTimeout(r, 300));
      expect(orders.deliveries.map((d) => d.payload.type).sort()).toEqual(['category.created', 'settings.updated']);
      expect(got.every((d) => verifiedWith(d, res.json().result.secret))).toBe(true);
    } finally {
      await orders.close();
    }
  });

  it('refuses unknown event types', async () => {
    const res = await t.call('webhooks.create', { url: receiver.url, events: ['product.exploded'] }, key);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'unknown_event_type', detail: expect.stringMatching(/events\.0/) });
  });
});
