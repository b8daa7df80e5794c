// Order webhooks to the platform: through the outbox and the delivery worker, the protocol's order entity, signed
// ES256 per RFC 9421 with a key /.well-known/ucp publishes. The signature is checked here with node:crypto from the
// published JWK alone, independently of the service's signing code.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/events/delivery-worker.ts';
import { serviceSafeFetch } from '../../src/outbound/service-client.ts';
import type { TestApp } from '../helpers/app.ts';
import type { RecordedRequest } from '../outbound/local-server.ts';
import { ADDRESS, checkout, createBody, expectValid, lines, ORDER_SCHEMA, paymentWith, SIMULATION_SECRET, STANDARD_RATE, startPlatform, ucp, ucpApp, type Platform } from './helpers.ts';

let t: TestApp;
let p: Platform;
let other: Platform;
let worker: DeliveryWorker;

beforeAll(async () => {
  // With SMTP configured, so the buyer e-mails an order's moves cause are written (no worker sends them here).
  t = await ucpApp({ SMTP_URL: 'smtp://127.0.0.1:2525' });
  p = await startPlatform(t);
  other = await startPlatform(t);
  worker = startDeliveryWorker({ db: t.db, config: t.config, log: t.app.log, fetch: serviceSafeFetch(t.config), secrets: t.secrets });
});
afterAll(async () => {
  await worker?.stop();
  await p?.close();
  await other?.close();
  await t?.close();
});

type Jwk = { kid: string; kty: string; crv: string; x: string; y: string };

/** RFC 9421 verification of sig1, written from the RFC: the signature base from the covered components, ES256 (P1363). */
function verifyRfc9421(req: RecordedRequest, url: string, jwks: Jwk[]): boolean {
  const header = (name: string) => String(req.headers[name] ?? '');
  const input = header('signature-input').replace(/^sig1=/, '');
  const components = [...input.slice(1, input.indexOf(')')).matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const value = (c: string) => (c === '@method' ? req.method : c === '@authority' ? new URL(url).host : c === '@path' ? req.path : header(c));
  const base = [...components.map((c) => `"${c}": ${value(c)}`), `"@signature-params": ${input}`].join('\n');
  const kid = /keyid="([^"]+)"/.exec(input)?.[1];
  const jwk = jwks.find((k) => k.kid === kid);
  if (!jwk) return false;
  const signature = Buffer.from(header('signature').replace(/^sig1=:/, '').replace(/:$/, ''), 'base64');
  return verify('sha256', Buffer.from(base), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, signature);
}

async function waitFor(list: RecordedRequest[], n: number) {
  for (let i = 0; i < 300 && list.length < n; i++) await new Promise((r) => setTimeout(r, 20));
  return list;
}

it('sends order placed and order shipped to the platform, signed with a published key; other platforms get nothing', async () => {
  const c = checkout(await ucp(t, p, 'POST', '/ucp/checkout-sessions', createBody([['bouquet_roses', 1]], true)), 201);
  const done = checkout(await ucp(t, p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')));
  const orderId = done.order!.id;

  const placed = (await waitFor(p.webhooks, 1))[0];
  expect(placed, 'order placed webhook').toBeDefined();
  const body = JSON.parse(placed.body);
  expectValid(body, [ORDER_SCHEMA]);
  expect(body).toMatchObject({ id: orderId, checkout_id: c.id });
  expect(body.fulfillment.expectations[0].destination).toMatchObject({ address_locality: 'San Francisco', postal_code: '94105' });
  expect(placed.headers['content-digest']).toBe(`sha-256=:${createHash('sha256').update(placed.body).digest('base64')}:`);
  const profile = (await t.app.inject({ method: 'GET', url: '/.well-known/ucp' })).json();
  expect(verifyRfc9421(placed, `${p.server.origin}/webhooks/order`, profile.signing_keys)).toBe(true);
  // Tampering breaks it.
  expect(verifyRfc9421({ ...placed, headers: { ...placed.headers, 'content-digest': 'sha-256=:AAAA:' } }, `${p.server.origin}/webhooks/order`, profile.signing_keys)).toBe(false);

  const shipped = await t.app.inject({ method: 'POST', url: `/testing/simulate-shipping/${orderId}`, headers: { 'simulation-secret': SIMULATION_SECRET } });
  expect(shipped.statusCode, shipped.body).toBe(200);
  await waitFor(p.webhooks, 3);
  const last = JSON.parse(p.webhooks.at(-1)!.body);
  expectValid(last, [ORDER_SCHEMA]);
  expect(last.fulfillment.events).toEqual([expect.objectContaining({ type: 'shipped' })]);
  expect(last.line_items[0].status).toBe('fulfilled');
  expect(other.webhooks).toEqual([]);
  const refused = await t.app.inject({ method: 'POST', url: `/testing/simulate-shipping/${orderId}`, headers: { 'simulation-secret': 'wrong-secret-wrong' } });
  expect(refused.statusCode).toBe(403);
}, 30_000);

it('ships an order placed without the buyer’s e-mail (UCP requires none), writing it no e-mail', async () => {
  const c = checkout(await ucp(t, p, 'POST', '/ucp/checkout-sessions', {
    line_items: lines([['pot_ceramic', 1]]),
    fulfillment: { methods: [{ type: 'shipping', destinations: [{ id: 'd', ...ADDRESS }], selected_destination_id: 'd', groups: [{ selected_option_id: STANDARD_RATE }] }] },
  }), 201);
  expect(c.status).toBe('ready_for_complete');
  const done = checkout(await ucp(t, p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')));
  const orderId = done.order!.id;
  expect((await t.db.order.findUniqueOrThrow({ where: { id: orderId } })).email).toBe('');
  // The suite labels even a body-less POST application/json.
  const shipped = await t.app.inject({
    method: 'POST', url: `/testing/simulate-shipping/${orderId}`, headers: { 'simulation-secret': SIMULATION_SECRET, 'content-type': 'application/json' },
  });
  expect(shipped.statusCode, shipped.body).toBe(200);
  expect((await t.db.order.findUniqueOrThrow({ where: { id: orderId } })).status).toBe('shipped');
  expect(await t.db.emailOutbox.count({ where: { orderId } })).toBe(0);
  // An order with the buyer's e-mail gets its shipping notice as before.
  const withBuyer = checkout(await ucp(t, p, 'POST', '/ucp/checkout-sessions', createBody([['pot_ceramic', 1]], true)), 201);
  const placed = checkout(await ucp(t, p, 'POST', `/ucp/checkout-sessions/${withBuyer.id}/complete`, paymentWith('success_token')));
  await t.app.inject({ method: 'POST', url: `/testing/simulate-shipping/${placed.order!.id}`, headers: { 'simulation-secret': SIMULATION_SECRET } });
  expect(await t.db.emailOutbox.findMany({ where: { orderId: placed.order!.id }, select: { kind: true } })).toEqual(expect.arrayContaining([{ kind: 'shipping_notice' }]));
}, 30_000);
