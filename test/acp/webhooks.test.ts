// ACP order events end to end: an operator registers the platform's webhook (an endpoint of format `acp` whose
// creator is the platform's key), the platform completes a session, and the delivery worker — the one of every
// webhook — POSTs order_create and, after orders.update_status, order_update to a local receiver. Merchant-Signature
// is checked here with node:crypto as the protocol writes it, independently of the service's signing code.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey } from '../../src/auth/key-format.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/events/delivery-worker.ts';
import { serviceSafeFetch } from '../../src/outbound/service-client.ts';
import { startLocalServer, type LocalServer, type RecordedRequest } from '../outbound/local-server.ts';
import { acp, acpWorld, createBody, expectSchema, payWith, session, type World } from './helpers.ts';

let w: World;
let worker: DeliveryWorker;
let operator: string;
const receivers: LocalServer[] = [];

/** The platform's receiver: answers as the protocol's webhook API does (200 {received: true}), or `status(n)` for the n-th request. */
async function receiver(status: (n: number) => number = () => 200): Promise<LocalServer> {
  let n = 0;
  const server = await startLocalServer((_req, res) => {
    res.writeHead(status(++n), { 'content-type': 'application/json' });
    res.end('{"received":true}');
  });
  receivers.push(server);
  return server;
}

const keyIdOf = (key: string) => parseKey(key)!.id;

/** Registers the platform's endpoint as an operator does; returns its id and the shared secret. */
async function register(url: string, platformKey: string, events: string[] = ['order.*']) {
  const res = await w.t.call('webhooks.create', { url, events, acpPlatformKeyId: keyIdOf(platformKey) }, operator);
  expect(res.statusCode, res.body).toBe(200);
  const { endpoint, secret } = res.json().result as { endpoint: { id: string; creatorKeyId: string }; secret: string };
  return { endpoint, secret };
}

/** Merchant-Signature as the protocol defines it: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>, 300 s window. */
function signedWith(req: RecordedRequest, secret: string): boolean {
  const m = /^t=(\d+),v1=([a-fA-F0-9]{64})$/.exec(String(req.headers['merchant-signature'] ?? ''));
  if (!m) return false;
  if (Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${req.body}`).digest();
  const given = Buffer.from(m[2], 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function waitFor(server: LocalServer, where: (e: { type: string; data: { status: string } }) => boolean): Promise<RecordedRequest> {
  for (let i = 0; i < 500; i++) {
    const found = server.requests.find((r) => where(JSON.parse(r.body)));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no matching event; got ${server.requests.map((r) => r.body.slice(0, 60)).join(' | ')}`);
}

beforeAll(async () => {
  // Retries come after 1 s here (the default schedule starts at 5 s), so a retried delivery is seen quickly.
  w = await acpWorld({ env: { WEBHOOK_RETRY_SCHEDULE: '1s,1s' } });
  operator = await w.t.key(['settings:write', 'settings:read', 'orders:read', 'customer:read', 'orders:write']);
  worker = startDeliveryWorker({ db: w.t.db, config: w.t.config, log: w.t.app.log, fetch: serviceSafeFetch(w.t.config), secrets: w.t.secrets });
});
afterAll(async () => {
  await worker?.stop();
  for (const r of receivers) await r.close();
  await w?.t.close();
  await w?.stripe.close();
});

describe('ACP order webhooks', () => {
  it('sends order_create at completion and order_update on shipping, signed with Merchant-Signature; other platforms get nothing', async () => {
    const mine = await receiver();
    const theirs = await receiver();
    const { endpoint, secret } = await register(`${mine.origin}/agentic_checkout/webhooks/order_events`, w.key);
    expect(endpoint.creatorKeyId).toBe(keyIdOf(w.key));
    expect(await w.t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({ format: 'acp', events: ['order.*'] });
    const otherPlatform = await w.t.key(['checkout:agent']);
    await register(`${theirs.origin}/order_events`, otherPlatform);

    const s = session(await acp(w, 'POST', '/acp/checkout_sessions', createBody([['item_123', 2]], true)), 201);
    const done = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_webhook')));
    const orderId = done.order!.id;

    const created = await waitFor(mine, (e) => e.type === 'order_create');
    expect(created.method).toBe('POST');
    expect(created.path).toBe('/agentic_checkout/webhooks/order_events');
    expect(created.headers['content-type']).toBe('application/json');
    expect(signedWith(created, secret)).toBe(true);
    expect(signedWith({ ...created, body: `${created.body} ` }, secret)).toBe(false);
    expect(signedWith(created, 'whsec_another_secret')).toBe(false);
    const event = JSON.parse(created.body);
    expect(event.data).toMatchObject({ type: 'order', id: orderId, checkout_session_id: s.id, status: 'created' });
    expectSchema(event.data, 'Order');
    expect(event.data.line_items[0].quantity).toEqual({ ordered: 2, current: 2, fulfilled: 0 });
    // The Request-Id is the event's id, the same on every retry, so the platform can drop a repeated delivery.
    const stored = await w.t.db.webhookEvent.findUnique({ where: { id: String(created.headers['request-id']) } });
    expect(stored).toMatchObject({ type: 'order.created', entityId: orderId });

    const paid = await waitFor(mine, (e) => e.type === 'order_update' && e.data.status === 'confirmed');
    expect(signedWith(paid, secret)).toBe(true);

    const shipped = await w.t.call('orders.update_status', { orderId, status: 'shipped', carrier: 'USPS', trackingNumber: '9400111899223456789012' }, operator);
    expect(shipped.statusCode, shipped.body).toBe(200);
    const update = await waitFor(mine, (e) => e.type === 'order_update' && e.data.status === 'shipped');
    expect(signedWith(update, secret)).toBe(true);
    const updated = JSON.parse(update.body);
    expectSchema(updated.data, 'Order');
    expect(updated.data).toMatchObject({ id: orderId, checkout_session_id: s.id });
    expect(updated.data.line_items[0].quantity.fulfilled).toBe(2);

    // The other platform's endpoint saw none of it: its deliveries were skipped, not sent.
    expect(theirs.requests).toEqual([]);
    const listed = await w.t.call('webhooks.list_deliveries', { endpointId: endpoint.id, status: 'succeeded' }, operator);
    expect(listed.json().result.deliveries.map((d: { eventType: string }) => d.eventType)).toEqual(expect.arrayContaining(['order.created', 'order.status_changed']));
  }, 30_000);

  it('retries a refused delivery on the schedule of every webhook, with the same Request-Id and a fresh signature', async () => {
    const platform = await w.t.key(['checkout:agent']);
    const flaky = await receiver((n) => (n === 1 ? 401 : 200));
    const { endpoint, secret } = await register(`${flaky.origin}/retry`, platform, ['order.created']);
    const s = session(await acp(w, 'POST', '/acp/checkout_sessions', createBody([['item_456', 1]], true), { key: platform }), 201);
    session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_retry'), { key: platform }));
    for (let i = 0; i < 500 && flaky.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    const [first, second] = flaky.requests;
    expect(second, 'the retry').toBeDefined();
    expect(second.headers['request-id']).toBe(first.headers['request-id']);
    expect(second.body).toBe(first.body);
    expect(signedWith(second, secret)).toBe(true);
    // The worker records an attempt once the receiver has answered it: poll until the second one is written.
    const attempts = async () => {
      const [delivery] = (await w.t.call('webhooks.list_deliveries', { endpointId: endpoint.id }, operator)).json().result.deliveries;
      return (delivery?.attempts ?? []).map((a: { statusCode: number }) => a.statusCode);
    };
    let recorded = await attempts();
    for (let i = 0; i < 250 && recorded.length < 2; i++) recorded = await new Promise((r) => setTimeout(r, 20)).then(attempts);
    expect(recorded).toEqual([401, 200]);
  }, 30_000);

  it('refuses an ACP endpoint for a key without checkout:agent, or for other events than orders', async () => {
    const mine = await receiver();
    const notPlatform = await w.t.key(['orders:read']);
    const refused = await w.t.call('webhooks.create', { url: `${mine.origin}/x`, events: ['order.*'], acpPlatformKeyId: keyIdOf(notPlatform) }, operator);
    expect(refused.statusCode, refused.body).toBe(404);
    const products = await w.t.call('webhooks.create', { url: `${mine.origin}/x`, events: ['order.*', 'cart.*'], acpPlatformKeyId: keyIdOf(w.key) }, operator);
    expect(products.statusCode, products.body).toBe(422);
    expect(products.json().code).toBe('platform_events_only');
    expect(await w.t.db.webhookEndpoint.count({ where: { url: `${mine.origin}/x` } })).toBe(0);
  });

  it('keeps the platform key as the creator when an operator re-saves the endpoint', async () => {
    const mine = await receiver();
    const { endpoint } = await register(`${mine.origin}/resaved`, w.key);
    const res = await w.t.call('webhooks.update', { id: endpoint.id, url: `${mine.origin}/resaved-2` }, operator);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toMatchObject({ creatorKeyId: keyIdOf(w.key), url: `${mine.origin}/resaved-2` });
    expect(await w.t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({ format: 'acp', creatorKeyId: keyIdOf(w.key) });
  });
});
