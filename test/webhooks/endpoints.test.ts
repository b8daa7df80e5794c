// The webhooks.* tools over HTTP against PostgreSQL, with a local receiver; deliveries verified with standardwebhooks.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/events/delivery-worker.ts';
import { buildMcpCatalog } from '../../src/mcp/tool-catalog.ts';
import { serviceSafeFetch } from '../../src/outbound/service-client.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';
import { startReceiver, verifiedWith, type Receiver } from './receiver.ts';

type Env = Record<string, string>;

async function withWorker(env: Env) {
  const t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: '1', WEBHOOK_POLL_INTERVAL: '20ms', ...env } });
  const worker = startDeliveryWorker({ db: t.db, config: t.config, log: t.app.log, fetch: serviceSafeFetch(t.config), secrets: t.secrets });
  return { t, worker, key: await t.key() };
}

describe('endpoint management and delivery', () => {
  let t: TestApp;
  let worker: DeliveryWorker;
  let key: string;
  let receiver: Receiver;

  beforeAll(async () => {
    ({ t, worker, key } = await withWorker({ WEBHOOK_RETRY_SCHEDULE: '300ms,600ms,1200ms' }));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await t?.close();
  });

  const create = async (events = ['settings.updated']) => {
    const res = await t.call('webhooks.create', { url: receiver.url, events, description: 'test' }, key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result as { endpoint: { id: string }; secret: string };
  };

  it('create returns the whsec_ secret once; list, audit and events never show it', async () => {
    const { endpoint, secret } = await create();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await t.call('webhooks.list', {}, key);
    expect(list.body).not.toContain(secret);
    expect(list.json().result.find((e: { id: string }) => e.id === endpoint.id)).toMatchObject({ enabled: true, events: ['settings.updated'], description: 'test' });
    const audit = await t.db.auditEntry.findFirstOrThrow({ where: { tool: 'webhooks.create', entityId: endpoint.id } });
    expect(JSON.stringify(audit)).not.toContain(secret.slice(6));
    const events = await t.db.webhookEvent.findMany({ where: { entityId: endpoint.id } });
    expect(events.map((e) => e.type)).toEqual(['webhook_endpoint.created']);
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(secret.slice(6));
  });

  it('scopes: settings:read lists, settings:write is needed to create', async () => {
    const reader = await t.key(['settings:read']);
    expect((await t.call('webhooks.list', {}, reader)).statusCode).toBe(200);
    expectProblem(await t.call('webhooks.create', { url: receiver.url, events: ['*'] }, reader), 403, 'insufficient_scope');
  });

  it('a dry run creates nothing; an Idempotency-Key replays the same endpoint without its secret', async () => {
    const count = await t.db.webhookEndpoint.count();
    const dry = await t.call('webhooks.create', { url: receiver.url, events: ['*'], dryRun: true }, key);
    expect(dry.statusCode, dry.body).toBe(200);
    expect(await t.db.webhookEndpoint.count()).toBe(count);
    const headers = { 'idempotency-key': 'create-once' };
    const first = await t.call('webhooks.create', { url: receiver.url, events: ['*'] }, key, { headers });
    const again = await t.call('webhooks.create', { url: receiver.url, events: ['*'] }, key, { headers });
    const { secret, endpoint } = first.json().result;
    expect(secret).toMatch(/^whsec_/);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().result).toEqual({ endpoint, secret: null, secretNote: expect.stringMatching(/shown only in the first answer.*webhooks\.rotate_secret/) });
    expect(again.body).not.toContain(secret.slice(6));
    expect(await t.db.webhookEndpoint.count()).toBe(count + 1);
    // Nor is it kept where a replay would read it from.
    const [record] = await t.db.$queryRaw<{ response: string }[]>`SELECT response::text FROM "IdempotencyRecord" WHERE key = 'create-once'`;
    expect(record.response).toContain(endpoint.id);
    expect(record.response).not.toContain(secret.slice(6));

    const rotateHeaders = { 'idempotency-key': 'rotate-once' };
    const rotated = await t.call('webhooks.rotate_secret', { id: endpoint.id }, key, { headers: rotateHeaders });
    const fresh = rotated.json().result.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    const rotatedAgain = await t.call('webhooks.rotate_secret', { id: endpoint.id }, key, { headers: rotateHeaders });
    expect(rotatedAgain.json().result).toMatchObject({ secret: null, secretNote: expect.any(String) });
    expect(rotatedAgain.body).not.toContain(fresh.slice(6));
    await t.call('webhooks.delete', { id: endpoint.id, confirm: true }, key);
  });

  it('delivery: send_test reaches only that endpoint, verified; list_deliveries shows the attempt', async () => {
    const { endpoint, secret } = await create(['order.*']);
    const res = await t.call('webhooks.send_test', { id: endpoint.id }, key);
    expect(res.statusCode, res.body).toBe(200);
    const { eventId } = res.json().result;
    const [d] = await receiver.waitFor(1, (x) => x.id === eventId);
    expect(d.payload).toMatchObject({ type: 'webhook.test', data: { entityId: endpoint.id, object: { id: endpoint.id } } });
    expect(verifiedWith(d, secret)).toBe(true);
    await expect.poll(async () => (await t.call('webhooks.list_deliveries', { endpointId: endpoint.id }, key)).json().result.deliveries[0]?.status).toBe('succeeded');
    const list = (await t.call('webhooks.list_deliveries', { endpointId: endpoint.id }, key)).json().result;
    expect(list.deliveries).toHaveLength(1);
    expect(list.deliveries[0]).toMatchObject({ eventId, eventType: 'webhook.test', nextAttemptAt: null, attempts: [{ statusCode: 204, error: null }] });
  });

  it('redeliver sends the same event again with the same webhook-id', async () => {
    const { endpoint, secret } = await create(['order.*']);
    const { eventId } = (await t.call('webhooks.send_test', { id: endpoint.id }, key)).json().result;
    await receiver.waitFor(1, (x) => x.id === eventId);
    const res = await t.call('webhooks.redeliver', { eventId, endpointId: endpoint.id }, key);
    expect(res.statusCode, res.body).toBe(200);
    const both = await receiver.waitFor(2, (x) => x.id === eventId);
    expect(both[0].body).toBe(both[1].body);
    expect(both.every((d) => verifiedWith(d, secret))).toBe(true);
    expectProblem(await t.call('webhooks.redeliver', { eventId: 'evt_nope', endpointId: endpoint.id }, key), 404, 'not_found');
  });

  it('rotate_secret: deliveries carry two signatures, each verifying with one of the secrets', async () => {
    const { endpoint, secret: old } = await create(['order.*']);
    const rotated = await t.call('webhooks.rotate_secret', { id: endpoint.id }, key);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const fresh = rotated.json().result.secret as string;
    expect(fresh).not.toBe(old);
    const { eventId } = (await t.call('webhooks.send_test', { id: endpoint.id }, key)).json().result;
    const [d] = await receiver.waitFor(1, (x) => x.id === eventId);
    expect(d.signature.split(' ')).toHaveLength(2);
    expect(verifiedWith(d, fresh)).toBe(true);
    expect(verifiedWith(d, old)).toBe(true);
    expect(verifiedWith(d, `whsec_${Buffer.alloc(32, 1).toString('base64')}`)).toBe(false);
  });

  it('retries with the shortened schedule, keeps the webhook-id, stores 1 KB of the answer, then fails', async () => {
    const failing = await startReceiver();
    failing.respond(() => ({ status: 503, body: 'x'.repeat(5000) }));
    try {
      const res = await t.call('webhooks.create', { url: failing.url, events: ['order.*'] }, key);
      const id = res.json().result.endpoint.id;
      const { eventId } = (await t.call('webhooks.send_test', { id }, key)).json().result;
      const attempts = await failing.waitFor(4, undefined, 20_000);
      expect(new Set(attempts.map((a) => a.id))).toEqual(new Set([eventId]));
      const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i].at);
      // Schedule 300/600/1200 ms plus up to 20 % jitter, plus polling and sending.
      [300, 600, 1200].forEach((base, i) => {
        expect(gaps[i]).toBeGreaterThanOrEqual(base - 20);
        expect(gaps[i]).toBeLessThan(base * 1.2 + 500);
      });
      await expect.poll(async () => (await t.call('webhooks.list_deliveries', { endpointId: id }, key)).json().result.deliveries[0].status, { timeout: 5000 }).toBe('failed');
      const [delivery] = (await t.call('webhooks.list_deliveries', { endpointId: id }, key)).json().result.deliveries;
      expect(delivery.attempts).toHaveLength(4);
      for (const a of delivery.attempts) expect(a).toMatchObject({ statusCode: 503, error: 'HTTP 503', responseBody: 'x'.repeat(1024) });
      await new Promise((r) => setTimeout(r, 500));
      expect(failing.deliveries).toHaveLength(4);
    } finally {
      await failing.close();
    }
  });

  it('update changes events and url; delete needs confirm and removes the endpoint', async () => {
    const { endpoint } = await create(['order.*']);
    const updated = await t.call('webhooks.update', { id: endpoint.id, events: ['product.created'], enabled: false }, key);
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().result).toMatchObject({ events: ['product.created'], enabled: false, disabledReason: 'disabled with webhooks.update' });
    const types = (await t.db.webhookEvent.findMany({ where: { entityId: endpoint.id }, orderBy: { sequence: 'asc' } })).map((e) => e.type);
    expect(types).toEqual(['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.disabled']);
    expectProblem(await t.call('webhooks.update', { id: endpoint.id }, key), 400, 'invalid_request');
    expectProblem(await t.call('webhooks.delete', { id: endpoint.id }, key), 422, 'confirmation_required');
    expect((await t.call('webhooks.delete', { id: endpoint.id, confirm: true }, key)).statusCode).toBe(200);
    expectProblem(await t.call('webhooks.delete', { id: endpoint.id, confirm: true }, key), 404, 'not_found');
  });

  it('update publishes "at least one field besides id": the OpenAPI and MCP schemas refuse { id } alone, as the server does', async () => {
    const { endpoint } = await create();
    const openapi = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
    const published = openapi.paths['/api/v1/tools/webhooks.update'].post.requestBody.content['application/json'].schema;
    const mcp = buildMcpCatalog(TOOLS).get('webhooks.update')!.definition('inline').inputSchema;
    for (const schema of [published, mcp]) {
      const valid = new Ajv2020({ strict: false }).compile(schema);
      expect(valid({ id: endpoint.id })).toBe(false);
      expect(valid({ id: endpoint.id, enabled: true })).toBe(true);
      expect(valid({ id: endpoint.id, dryRun: true })).toBe(true);
    }
    expectProblem(await t.call('webhooks.update', { id: endpoint.id }, key), 400, 'invalid_request');
    // Valid under the schema, so a domain error rather than a complaint about the shape.
    expectProblem(await t.call('webhooks.update', { id: endpoint.id, dryRun: true }, key), 422, 'nothing_to_change');
    expect((await t.call('webhooks.update', { id: endpoint.id, description: 'only this' }, key)).statusCode).toBe(200);
  });

  it('stats report queue depth and lag', async () => {
    const res = await t.call('webhooks.stats', {}, key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toMatchObject({ pending: expect.any(Number), due: expect.any(Number), lagSeconds: expect.any(Number) });
    expect(res.json().result.succeededLast24h).toBeGreaterThan(0);
    expect(res.json().result.failedLast24h).toBeGreaterThan(0);
  });
});

describe('an endpoint failing for the disable period', () => {
  it('is disabled (audit entry + webhook_endpoint.disabled to the others) and re-enabled by webhooks.update', async () => {
    const { t, worker, key } = await withWorker({ WEBHOOK_RETRY_SCHEDULE: Array(30).fill('100ms').join(','), WEBHOOK_DISABLE_AFTER: '600ms' });
    const failing = await startReceiver();
    const watcher = await startReceiver();
    failing.respond(() => ({ status: 500 }));
    try {
      const bad = (await t.call('webhooks.create', { url: failing.url, events: ['order.*'] }, key)).json().result.endpoint.id;
      await t.call('webhooks.create', { url: watcher.url, events: ['webhook_endpoint.*'] }, key);
      await t.call('webhooks.send_test', { id: bad }, key);
      const [disabled] = await watcher.waitFor(1, (d) => d.payload.type === 'webhook_endpoint.disabled', 10_000);
      expect(disabled.payload.data).toMatchObject({ entityId: bad, object: { enabled: false, disabledReason: expect.stringMatching(/^deliveries failing since /) } });
      const entry = await t.db.auditEntry.findFirstOrThrow({ where: { entityId: bad, tool: 'webhooks.delivery' } });
      expect(entry.after).toMatchObject({ enabled: false });
      await expect.poll(async () => (await t.call('webhooks.list_deliveries', { endpointId: bad }, key)).json().result.deliveries[0].status).toBe('failed');
      const sent = failing.deliveries.length;
      failing.respond(() => ({ status: 200 }));
      const reenabled = await t.call('webhooks.update', { id: bad, enabled: true }, key);
      expect(reenabled.json().result).toMatchObject({ enabled: true, disabledReason: null });
      expect((await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: bad } })).failingSince).toBeNull();
      await t.call('webhooks.send_test', { id: bad }, key);
      await failing.waitFor(sent + 1);
    } finally {
      await worker.stop();
      await failing.close();
      await watcher.close();
      await t.close();
    }
  });
});

describe('shutdown', () => {
  it('finishes and records the request in flight, and hands back claimed deliveries it has not sent', async () => {
    // One request at a time, so the worker holds a second claimed delivery it has not sent yet.
    const t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: '1', WEBHOOK_POLL_INTERVAL: '20ms', WEBHOOK_CONCURRENCY: '1', WEBHOOK_LEASE: '60s' } });
    const receiver = await startReceiver();
    receiver.respond(() => ({ status: 204, delayMs: 1000 }));
    try {
      const key = await t.key();
      const endpoint = (await t.call('webhooks.create', { url: receiver.url, events: ['order.*'] }, key)).json().result.endpoint.id;
      for (let i = 0; i < 4; i++) await t.call('webhooks.send_test', { id: endpoint }, key);
      const worker = startDeliveryWorker({ db: t.db, config: t.config, log: t.app.log, fetch: serviceSafeFetch(t.config), secrets: t.secrets });
      const [sent] = await receiver.waitFor(1);
      await worker.stop();
      expect(receiver.deliveries).toHaveLength(1);
      const deliveries = await t.db.webhookDelivery.findMany({ where: { endpointId: endpoint }, include: { event: true } });
      const [{ now }] = await t.db.$queryRaw<{ now: Date }[]>`SELECT now()`;
      expect(deliveries.find((d) => d.event.id === sent.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
      const rest = deliveries.filter((d) => d.event.id !== sent.id);
      expect(rest).toHaveLength(3);
      // None is left under this instance's lease: another instance may send each one at once.
      for (const d of rest) expect({ status: d.status, attempts: d.attempts, due: d.nextAttemptAt <= now }).toEqual({ status: 'pending', attempts: 0, due: true });
    } finally {
      await receiver.close();
      await t.close();
    }
  });
});

describe('private addresses', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let key: string;
  const dns = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp();
    // The same database and settings, with a resolver the test controls (the sandbox has no DNS).
    app = await buildApp(t.config, { db: t.db, resolve: async (host) => (dns.has(host) ? [dns.get(host)!] : []) });
    key = await t.key();
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });
  const call = (name: string, body: unknown) =>
    app.inject({ method: 'POST', url: `/api/v1/tools/${name}`, headers: { authorization: `Bearer ${key}` }, payload: body as object });

  it.each([
    ['http://hooks.example.com/in', /scheme must be https/],
    ['https://127.0.0.1/in', /loopback/],
    ['https://10.1.2.3/in', /private/],
    ['https://[::1]/in', /loopback/],
    ['https://169.254.169.254/latest', /linkLocal/],
    ['https://user:pw@hooks.example.com/in', /credentials/],
    ['https://inside.example.com/in', /private/],
    ['https://nowhere.example.com/in', /does not resolve/],
  ])('refuses %s at create', async (url, why) => {
    dns.set('inside.example.com', '192.168.1.10');
    dns.set('hooks.example.com', '93.184.216.34');
    const body = expectProblem(await call('webhooks.create', { url, events: ['*'] }), 400, 'invalid_webhook_url');
    expect(body.detail).toMatch(why);
  });

  it('refuses the delivery when DNS later points the host inside, without connecting', async () => {
    const receiver = await startReceiver();
    dns.set('hooks.example.com', '93.184.216.34');
    const res = await call('webhooks.create', { url: `https://hooks.example.com:${receiver.port}/hooks`, events: ['*'] });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().result.endpoint.id;
    dns.set('hooks.example.com', '127.0.0.1');
    expectProblem(await call('webhooks.update', { id, url: `https://hooks.example.com:${receiver.port}/other` }), 400, 'invalid_webhook_url');
    await call('webhooks.send_test', { id });
    const worker = startDeliveryWorker({ db: t.db, config: t.config, log: t.app.log, fetch: serviceSafeFetch(t.config, async (host) => [dns.get(host)!]), secrets: t.secrets });
    try {
      await expect.poll(async () => (await call('webhooks.list_deliveries', { endpointId: id })).json().result.deliveries[0].attempts.length).toBeGreaterThan(0);
      const [delivery] = (await call('webhooks.list_deliveries', { endpointId: id })).json().result.deliveries;
      expect(delivery.attempts[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused_address: .*loopback/) });
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
