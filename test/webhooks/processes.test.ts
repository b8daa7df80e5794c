// Delivery with real server processes on one database: sharing the queue, crashes mid-delivery, a crash between
// commit and delivery. The receiver is a local server; every delivery is verified with standardwebhooks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startServerProcess, type ServerProcess } from '../helpers/processes.ts';
import { startReceiver, verifiedWith, type Receiver } from './receiver.ts';

const SERVER = ['--import', 'tsx', 'src/server.ts'];

let database: TestDatabase;
let key: string;
const servers: ServerProcess[] = [];

async function startInstance(env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess(SERVER, {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    REDIS_URL: undefined,
    OUTBOUND_ALLOW_PRIVATE: '1',
    WEBHOOK_POLL_INTERVAL: '50ms',
    WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms',
    RATE_LIMIT_PREAUTH_MAX: '100000',
    RATE_LIMIT_AUTH_MAX: '100000',
    ...env,
  });
  servers.push(server);
  return server;
}

async function stop(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM') {
  server.child.kill(signal);
  await server.exited;
}

async function call(server: ServerProcess, tool: string, body: unknown) {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { result: Record<string, unknown> };
  if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${JSON.stringify(json)}`);
  return json.result;
}

/** `count` feature.set writes spread over the instances, `parallel` at a time; resolves when all committed. */
async function writeEvents(instances: ServerProcess[], prefix: string, count: number, parallel = 16) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        await call(instances[i % instances.length], 'features.set', { key: `${prefix}-${i}`, enabled: true });
      }
    }),
  );
}

async function subscribe(server: ServerProcess, receiver: Receiver): Promise<string> {
  const { secret } = (await call(server, 'webhooks.create', { url: receiver.url, events: ['feature.*'] })) as { secret: string };
  return secret;
}

const eventIdsOf = async (prefix: string) =>
  new Set((await database.db.webhookEvent.findMany({ where: { entityId: { startsWith: `${prefix}-` } }, select: { id: true } })).map((e) => e.id));

beforeAll(async () => {
  database = await createTestDatabase();
  key = (await createKey(database.db, { name: 'webhooks', scopes: ['features:write', 'features:read', 'settings:write', 'settings:read'] })).key;
});

afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) await stop(s, 'SIGKILL');
  await database?.drop();
});

describe('delivery across processes', () => {
  it('two instances deliver each of 1,000 events exactly once', async () => {
    const [a, b] = await Promise.all([startInstance(), startInstance()]);
    const receiver = await startReceiver();
    try {
      const secret = await subscribe(a, receiver);
      await writeEvents([a, b], 'once', 1000);
      const ids = await eventIdsOf('once');
      expect(ids.size).toBe(1000);
      await receiver.waitFor(1000, (d) => ids.has(d.id), 60_000);
      await new Promise((r) => setTimeout(r, 1000));
      const received = receiver.deliveries.filter((d) => ids.has(d.id));
      expect(received).toHaveLength(1000);
      expect(new Set(received.map((d) => d.id)).size).toBe(1000);
      expect(received.every((d) => verifiedWith(d, secret))).toBe(true);
      expect(await database.db.webhookDelivery.count({ where: { status: { not: 'succeeded' } } })).toBe(0);
    } finally {
      await receiver.close();
      await Promise.all([stop(a), stop(b)]);
    }
  }, 180_000);

  it('an instance killed with SIGKILL mid-delivery: every event still arrives, duplicates share their webhook-id', async () => {
    // A short lease, so the dead instance's claims fall due again quickly.
    const [a, b] = await Promise.all([startInstance({ WEBHOOK_LEASE: '3s' }), startInstance({ WEBHOOK_LEASE: '3s' })]);
    const receiver = await startReceiver();
    // Slow answers keep deliveries in flight when the instance dies.
    receiver.respond(() => ({ status: 204, delayMs: 200 }));
    try {
      const secret = await subscribe(a, receiver);
      await writeEvents([a, b], 'kill', 200);
      await receiver.waitFor(20);
      await stop(a, 'SIGKILL');
      const ids = await eventIdsOf('kill');
      const uniqueReceived = () => new Set(receiver.deliveries.filter((d) => ids.has(d.id)).map((d) => d.id)).size;
      await expect.poll(uniqueReceived, { timeout: 60_000 }).toBe(ids.size);
      const received = receiver.deliveries.filter((d) => ids.has(d.id));
      const bodies = new Map<string, string>();
      for (const d of received) {
        expect(verifiedWith(d, secret)).toBe(true);
        // A duplicate is the same event: same webhook-id, same body.
        expect(bodies.get(d.id) ?? d.body).toBe(d.body);
        bodies.set(d.id, d.body);
      }
      await expect.poll(() => database.db.webhookDelivery.count({ where: { status: 'pending' } }), { timeout: 15_000 }).toBe(0);
    } finally {
      await receiver.close();
      await stop(b);
    }
  }, 180_000);

  it('an event committed by an instance killed before delivering it is delivered after a restart', async () => {
    // This instance accepts writes but sends nothing, so it dies between commit and delivery.
    const writer = await startInstance({ WEBHOOK_CONCURRENCY: '0' });
    const receiver = await startReceiver();
    try {
      const secret = await subscribe(writer, receiver);
      await call(writer, 'features.set', { key: 'restart-0', enabled: true });
      await stop(writer, 'SIGKILL');
      expect(receiver.deliveries).toHaveLength(0);
      const [id] = await eventIdsOf('restart');
      const restarted = await startInstance();
      const [d] = await receiver.waitFor(1, (x) => x.id === id, 30_000);
      expect(d.payload).toMatchObject({ type: 'feature.updated', data: { entityId: 'restart-0', sequence: 1 } });
      expect(verifiedWith(d, secret)).toBe(true);
      await stop(restarted);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
