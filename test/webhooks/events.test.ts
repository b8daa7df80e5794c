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
  worker = startDeliveryWorker({ db: t.db, config: t.config, log: t.app.log, fetch: serviceSafeFetch(t.config) });
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
