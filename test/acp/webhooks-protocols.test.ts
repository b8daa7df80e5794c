// A platform speaking both protocols gets each order once, in the protocol it bought with: an order of its UCP
// checkout goes to its `ucp` endpoint, and its `acp` endpoint skips it (docs/agentic-checkout.md, "ACP order webhooks").
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseKey } from '../../src/auth/key-format.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/events/delivery-worker.ts';
import { serviceSafeFetch } from '../../src/outbound/service-client.ts';
import type { TestApp } from '../helpers/app.ts';
import { startLocalServer, type LocalServer } from '../outbound/local-server.ts';
import { checkout, createBody, paymentWith, startPlatform, ucp, ucpApp, type Platform } from '../ucp/helpers.ts';

let t: TestApp;
let p: Platform;
let acpReceiver: LocalServer;
let worker: DeliveryWorker;

beforeAll(async () => {
  t = await ucpApp();
  p = await startPlatform(t);
  acpReceiver = await startLocalServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"received":true}');
  });
  worker = startDeliveryWorker({ db: t.db, config: t.config, log: t.app.log, fetch: serviceSafeFetch(t.config), secrets: t.secrets });
});
afterAll(async () => {
  await worker?.stop();
  await acpReceiver?.close();
  await p?.close();
  await t?.close();
});

it('sends an order of a UCP checkout to the platform’s ucp endpoint only, skipping its acp endpoint', async () => {
  const operator = await t.key(['settings:write', 'settings:read', 'orders:read', 'customer:read']);
  const created = await t.call('webhooks.create', { url: `${acpReceiver.origin}/order_events`, events: ['order.*'], acpPlatformKeyId: parseKey(p.key)!.id }, operator);
  expect(created.statusCode, created.body).toBe(200);
  const endpointId = created.json().result.endpoint.id as string;

  const c = checkout(await ucp(t, p, 'POST', '/ucp/checkout-sessions', createBody(undefined, true)), 201);
  checkout(await ucp(t, p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')));
  for (let i = 0; i < 500 && p.webhooks.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(p.webhooks.length).toBeGreaterThan(0);

  let skipped: Array<{ skippedReason: string | null }> = [];
  for (let i = 0; i < 500 && skipped.length === 0; i++) {
    skipped = (await t.call('webhooks.list_deliveries', { endpointId, status: 'skipped' }, operator)).json().result.deliveries;
    if (skipped.length === 0) await new Promise((r) => setTimeout(r, 20));
  }
  expect(skipped[0]?.skippedReason).toBe('not an order placed from a checkout session');
  expect(acpReceiver.requests).toEqual([]);
}, 30_000);
