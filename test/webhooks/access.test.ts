// Webhooks see only what their creator may read (docs/webhooks.md, "Who receives what"): subscribing needs the read
// scopes of every event family reached, the creator is stored on the endpoint, and every delivery is checked against
// the creator as it is then; deliveries it may not read are recorded as skipped and never reach the receiver.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey, rotateKey } from '../../src/auth/key-admin.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/events/delivery-worker.ts';
import { revokeGrant } from '../../src/oauth/grant-admin.ts';
import { serviceSafeFetch } from '../../src/outbound/service-client.ts';
import type { Scope } from '../../src/registry/scopes.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';
import { authorizationRequest, obtainTokens, openConsentPage, registerClient } from '../oauth/mcp-host.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { da } from '../../src/i18n/da.ts';

type Delivery = { id: string; eventId: string; eventType: string; status: string; skippedReason: string | null; attempts: unknown[] };

let t: TestApp;
let worker: DeliveryWorker;
let receiver: Receiver;
let admin: string;
let base: string;

beforeAll(async () => {
  t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: '1', WEBHOOK_POLL_INTERVAL: '20ms' } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  worker = startDeliveryWorker({ db: t.db, config: t.config, log: t.app.log, fetch: serviceSafeFetch(t.config), secrets: t.secrets });
  receiver = await startReceiver();
  admin = await t.key();
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
});

const keyWith = (scopes: Scope[]) => createKey(t.db, { name: 'creator', scopes });

/** Each endpoint gets a path of its own on the receiver, so what reached it can be told apart. */
let endpoints = 0;
async function createdBy(key: string, events: string[]): Promise<string> {
  const res = await t.call('webhooks.create', { url: `${receiver.url}/${++endpoints}`, events }, key);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result.endpoint.id;
}

async function deliveriesOf(endpointId: string): Promise<Delivery[]> {
  const res = await t.call('webhooks.list_deliveries', { endpointId }, admin);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result.deliveries;
}

/** A feature.updated event (flips the flag), and the endpoint's delivery of it once it is no longer pending. */
let flips = 0;
async function featureEventTo(endpointId: string): Promise<Delivery> {
  const res = await t.call('features.set', { key: 'access.flag', enabled: flips++ % 2 === 0 }, admin);
  expect(res.statusCode, res.body).toBe(200);
  const event = await t.db.webhookEvent.findFirstOrThrow({ where: { type: 'feature.updated' }, orderBy: { sequence: 'desc' } });
  let done: Delivery | undefined;
  await expect
    .poll(async () => {
      done = (await deliveriesOf(endpointId)).find((d) => d.eventId === event.id && d.status !== 'pending');
      return done?.status;
    }, { timeout: 10_000 })
    .toBeDefined();
  return done!;
}

/** How often the event reached the endpoint's URL, after a short wait for any late arrival. */
async function receivedFor(endpointId: string, eventId: string): Promise<number> {
  await new Promise((r) => setTimeout(r, 150));
  const { url } = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
  const path = new URL(url).pathname;
  return receiver.requests.filter((r) => r.path === path && r.headers['webhook-id'] === eventId).length;
}

describe('subscribing needs the read scopes of every family the subscription reaches', () => {
  it('settings:write alone cannot subscribe to order or cart events, nor to "*"; settings:write + orders:read + customer:read can', async () => {
    const writer = await keyWith(['settings:write']);
    const before = await t.db.webhookEndpoint.count();
    for (const events of [['order.*'], ['order.created'], ['cart.updated'], ['*']]) {
      const res = await t.call('webhooks.create', { url: receiver.url, events }, writer.key);
      const body = expectProblem(res, 403, 'insufficient_scope');
      expect(body.detail).toMatch(/lacks .*orders:read/);
      expect(body.detail).toMatch(/customer:read/);
      expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope", scope="settings:write [^"]*customer:read[^"]*orders:read/);
    }
    // orders:read without customer:read: order payloads carry customers' contact details.
    const ordersOnly = await keyWith(['settings:write', 'orders:read']);
    const partial = expectProblem(await t.call('webhooks.create', { url: receiver.url, events: ['order.*'] }, ordersOnly.key), 403, 'insufficient_scope');
    expect(partial.detail).toMatch(/lacks customer:read\.$/);
    expect(await t.db.webhookEndpoint.count()).toBe(before);

    const orders = await keyWith(['settings:write', 'orders:read', 'customer:read']);
    const id = await createdBy(orders.key, ['order.*', 'cart.created']);
    const row = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ creatorKeyId: orders.id, creatorGrantId: null, creatorKeySecretHash: expect.any(String) });
    // The key's secret hash, kept to tell a rotation, is never shown.
    const audit = await t.db.auditEntry.findFirstOrThrow({ where: { tool: 'webhooks.create', entityId: id } });
    expect(JSON.stringify(audit)).not.toContain(row.creatorKeySecretHash);
    expect((await t.call('webhooks.list', {}, admin)).body).not.toContain(row.creatorKeySecretHash);

    // "*" needs every family's scope.
    const all = expectProblem(await t.call('webhooks.create', { url: receiver.url, events: ['*'] }, orders.key), 403, 'insufficient_scope');
    for (const scope of ['catalog:read', 'pages:read', 'discounts:read', 'settings:read', 'features:read', 'audit:read']) expect(all.detail).toContain(scope);
    expect(all.detail).not.toMatch(/lacks[^.]*orders:read/);
    const everything = await createdBy(admin, ['*']);
    expect((await t.call('webhooks.delete', { id: everything, confirm: true }, admin)).statusCode).toBe(200);
  });

  it('update: setting events, url or enabled: true needs them too and makes the caller the creator; a description does not', async () => {
    const orders = await keyWith(['settings:write', 'orders:read', 'customer:read']);
    const id = await createdBy(orders.key, ['order.*']);
    const settings = await keyWith(['settings:write', 'settings:read']);
    const own = await createdBy(settings.key, ['settings.updated']);

    expectProblem(await t.call('webhooks.update', { id: own, events: ['order.*'] }, settings.key), 403, 'insufficient_scope');
    expectProblem(await t.call('webhooks.update', { id: own, events: ['order.*'], dryRun: true }, settings.key), 403, 'insufficient_scope');
    expectProblem(await t.call('webhooks.update', { id, enabled: true }, settings.key), 403, 'insufficient_scope');
    expectProblem(await t.call('webhooks.update', { id, url: `${receiver.url}/other` }, settings.key), 403, 'insufficient_scope');
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: own } })).toMatchObject({ events: ['settings.updated'], creatorKeyId: settings.id });
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ enabled: true, url: `${receiver.url}/${endpoints - 1}`, creatorKeyId: orders.id });

    expect((await t.call('webhooks.update', { id, description: 'renamed' }, settings.key)).statusCode).toBe(200);
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ description: 'renamed', creatorKeyId: orders.id });
    const resaved = await t.call('webhooks.update', { id, events: ['order.created'] }, admin);
    expect(resaved.statusCode, resaved.body).toBe(200);
    expect(resaved.json().result).toMatchObject({ events: ['order.created'], creatorKeyId: admin.split('_')[1], creatorGrantId: null });
  });
});

describe('redeliver', () => {
  it('sends only an event the endpoint subscribes to, for a caller who can read what it subscribes to', async () => {
    const id = await createdBy(admin, ['feature.*']);
    const delivered = await featureEventTo(id);
    expect(delivered.status).toBe('succeeded');
    expect((await t.call('settings.update', { shopName: 'Redeliver test' }, admin)).statusCode).toBe(200);
    const other = await t.db.webhookEvent.findFirstOrThrow({ where: { type: 'settings.updated' }, orderBy: { createdAt: 'desc' } });
    const rows = await t.db.webhookDelivery.count({ where: { endpointId: id } });

    const refused = expectProblem(await t.call('webhooks.redeliver', { eventId: other.id, endpointId: id }, admin), 422, 'event_not_subscribed');
    expect(refused.detail).toContain('settings.updated');
    const settingsOnly = await keyWith(['settings:write', 'settings:read']);
    expectProblem(await t.call('webhooks.redeliver', { eventId: delivered.eventId, endpointId: id }, settingsOnly.key), 403, 'insufficient_scope');
    expect(await t.db.webhookDelivery.count({ where: { endpointId: id } })).toBe(rows);

    const res = await t.call('webhooks.redeliver', { eventId: delivered.eventId, endpointId: id }, admin);
    expect(res.statusCode, res.body).toBe(200);
    expect(await t.db.webhookDelivery.count({ where: { endpointId: id } })).toBe(rows + 1);
  });
});

describe('every delivery is checked against the creator as it is then', () => {
  it('a creator that lost the family scope, expired, was rotated or revoked, gets skipped deliveries and the receiver nothing', async () => {
    const creator = await keyWith(['settings:write', 'features:read']);
    const id = await createdBy(creator.key, ['feature.*']);
    const first = await featureEventTo(id);
    expect(first).toMatchObject({ status: 'succeeded', skippedReason: null });
    expect(await receivedFor(id, first.eventId)).toBe(1);

    await t.db.apiKey.update({ where: { id: creator.id }, data: { scopes: ['settings:write'] } });
    const lost = await featureEventTo(id);
    expect(lost).toMatchObject({ status: 'skipped', skippedReason: 'the creator lacks features:read', attempts: [] });
    expect(await receivedFor(id, lost.eventId)).toBe(0);

    await t.db.apiKey.update({ where: { id: creator.id }, data: { scopes: ['settings:write', 'features:read'], expiresAt: new Date(Date.now() - 1000) } });
    const expired = await featureEventTo(id);
    expect(expired).toMatchObject({ status: 'skipped', skippedReason: 'the creator key expired' });
    expect(await receivedFor(id, expired.eventId)).toBe(0);

    await t.db.apiKey.update({ where: { id: creator.id }, data: { expiresAt: null } });
    expect((await featureEventTo(id)).status).toBe('succeeded');

    // A rotation ends what the old secret set up, as it ends the old secret; the new one re-saves the endpoint.
    const rotated = await rotateKey(t.db, creator.id);
    const afterRotation = await featureEventTo(id);
    expect(afterRotation).toMatchObject({ status: 'skipped', skippedReason: 'the creator key was rotated since: re-save the endpoint with webhooks.update' });
    expect(await receivedFor(id, afterRotation.eventId)).toBe(0);
    expect((await t.call('webhooks.update', { id, enabled: true }, rotated.key)).statusCode).toBe(200);
    expect((await featureEventTo(id)).status).toBe('succeeded');

    await revokeKey(t.db, creator.id);
    const revoked = await featureEventTo(id);
    expect(revoked).toMatchObject({ status: 'skipped', skippedReason: 'the creator key was revoked', attempts: [] });
    expect(await receivedFor(id, revoked.eventId)).toBe(0);

    const skippedOnly = (await t.call('webhooks.list_deliveries', { endpointId: id, status: 'skipped' }, admin)).json().result.deliveries;
    expect(skippedOnly.map((d: Delivery) => d.eventId).sort()).toEqual([lost.eventId, expired.eventId, afterRotation.eventId, revoked.eventId].sort());
    expect((await t.call('webhooks.stats', {}, admin)).json().result.skippedLast24h).toBeGreaterThanOrEqual(4);
    // A skipped delivery says nothing about the receiver: no failure streak starts.
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ enabled: true, failingSince: null });
  });

  it('an endpoint without a recorded creator (made before creators were kept) skips until webhooks.update re-saves it', async () => {
    const id = await createdBy(admin, ['feature.*']);
    await t.db.webhookEndpoint.update({ where: { id }, data: { creatorKeyId: null } });
    const legacy = await featureEventTo(id);
    expect(legacy).toMatchObject({ status: 'skipped', skippedReason: expect.stringMatching(/no recorded creator: re-save it with webhooks.update/) });
    expect(await receivedFor(id, legacy.eventId)).toBe(0);

    const reader = await keyWith(['settings:write', 'features:read']);
    expect((await t.call('webhooks.update', { id, enabled: true }, reader.key)).statusCode).toBe(200);
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ creatorKeyId: reader.id });
    const resumed = await featureEventTo(id);
    expect(resumed.status).toBe('succeeded');
    expect(await receivedFor(id, resumed.eventId)).toBe(1);
  });

  it('an OAuth host as creator: limited to what its grant holds, and skipped once the grant has expired or is revoked', async () => {
    const operator = await keyWith(['settings:write', 'features:read', 'orders:read', 'customer:read']);
    const clientId = await registerClient(base, 'Webhook Host');
    // The operator is told what settings:write lets a host do with webhooks (in the shop's language, Danish here).
    const { url } = authorizationRequest(base, { client_id: clientId, resource: `${base}/api/v1`, scope: 'settings:write features:read' });
    const consent = await openConsentPage(url);
    expect(consent.status).toBe(200);
    expect(da.consent.scopes['settings:write']).toMatch(/oprette webhooks: webadresser, der løbende får sendt data om alt andet, der her godkendes til læsning/);
    expect(consent.html).toContain(da.consent.scopes['settings:write']);
    const { access_token: token } = await obtainTokens(base, { clientId, operatorKey: operator.key, resource: `${base}/api/v1`, scope: 'settings:write features:read' });
    const call = async (name: string, body: unknown) => {
      const res = await fetch(`${base}/api/v1/tools/${name}`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> & { result: { endpoint: { id: string } } } };
    };
    // The operator key could read orders, but the grant it approved cannot.
    const refused = await call('webhooks.create', { url: `${receiver.url}/refused`, events: ['order.*'] });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/this grant lacks customer:read, orders:read/);

    const created = await call('webhooks.create', { url: `${receiver.url}/${++endpoints}`, events: ['feature.*'] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.result.endpoint.id;
    const grant = await t.db.oAuthGrant.findFirstOrThrow({ where: { apiKeyId: operator.id } });
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ creatorKeyId: operator.id, creatorGrantId: grant.id });
    expect((await featureEventTo(id)).status).toBe('succeeded');

    // The grant's life is its authorization server record: once that has expired, so has the grant.
    const record = await t.db.oAuthRecord.findUniqueOrThrow({ where: { id: `Grant:${grant.id}` } });
    await t.db.oAuthRecord.update({ where: { id: record.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await featureEventTo(id);
    expect(expired).toMatchObject({ status: 'skipped', skippedReason: 'the creator grant expired' });
    await t.db.oAuthRecord.update({ where: { id: record.id }, data: { expiresAt: record.expiresAt } });

    await revokeGrant(t.db, grant.id);
    const revoked = await featureEventTo(id);
    expect(revoked).toMatchObject({ status: 'skipped', skippedReason: 'the creator grant was revoked' });
    expect(await receivedFor(id, revoked.eventId)).toBe(0);
  });
});
