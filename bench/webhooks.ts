// Webhook delivery (docs/webhooks.md): deliveries per second to a local receiver, the lag from commit to delivery
// under a steady 200 writes/s, and what the outbox statement adds to a write's transaction.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey } from '../src/auth/key-admin.ts';
import { createDb, type Db } from '../src/db/client.ts';
import { toJsonValue } from '../src/db/json-value.ts';
import { migrate } from '../src/db/migrate.ts';
import { recordEvents } from '../src/events/outbox.ts';
import { featureSnapshot, setFeature } from '../src/services/features.ts';
import { registerCleanup } from './cleanup.ts';
import { round } from './format.ts';
import { keepProfile, startService } from './processes.ts';
import { createBenchDatabase } from './seed.ts';
import { settings } from './settings.ts';
import type { TargetResult } from './targets.ts';

export type WebhookBench = {
  deliveriesPerSecond: number;
  lag: {
    writesPerSecond: number;
    events: number;
    failedWrites: number;
    firstFailure: string | null;
    /** How long the writes took (their answer), to tell a slow worker from a service that did not keep up. */
    writeP50Ms: number;
    writeP99Ms: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
  };
  outbox: { writeMsWithout: number; writeMsWith: number; overheadPct: number };
  targets: TargetResult[];
};

const BURST = 5000;
const LAG_RATE = 200;
const LAG_SECONDS = 10;
const OVERHEAD_WRITES = 1500;

/** A receiver that answers 204 at once and notes when each webhook-id first arrived. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { createdAt: string };
      createdAt.set(id, Date.parse(body.createdAt));
      res.writeHead(204).end();
    });
  });
  const createdAt = new Map<string, number>();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  registerCleanup(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, arrivals, createdAt };
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !done(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > deadline) throw new Error('webhook bench: deliveries did not arrive in time');
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** One write as invokeTool runs it: the change, its audit entry and (optionally) its events, in one transaction. */
async function featureWrite(db: Db, i: number, withOutbox: boolean): Promise<void> {
  await db.$transaction(async (tx) => {
    const { before, after } = await setFeature(tx, { key: `bench-${i % 50}`, enabled: i % 2 === 0 });
    const change = { entityType: 'feature', entityId: after.key, before: before && featureSnapshot(before), after: featureSnapshot(after) };
    await tx.auditEntry.createMany({ data: [{ tool: 'features.set', ...change, before: toJsonValue(change.before), after: toJsonValue(change.after) }] });
    if (withOutbox) await recordEvents(tx, [change]);
  });
}

async function outboxOverhead(db: Db) {
  const totals = { with: 0, without: 0 };
  // Alternating rounds, so both sides see the same load and cache state.
  for (let round = 0; round < 6; round++) {
    for (const side of ['without', 'with'] as const) {
      const started = performance.now();
      for (let i = 0; i < OVERHEAD_WRITES / 6; i++) await featureWrite(db, i, side === 'with');
      totals[side] += performance.now() - started;
    }
  }
  const writeMsWithout = totals.without / OVERHEAD_WRITES;
  const writeMsWith = totals.with / OVERHEAD_WRITES;
  return { writeMsWithout: round(writeMsWithout, 3), writeMsWith: round(writeMsWith, 3), overheadPct: round(100 * (writeMsWith / writeMsWithout - 1), 1) };
}

export async function runWebhookBench(): Promise<WebhookBench> {
  console.log('\n=== webhooks ===');
  const bench = await createBenchDatabase(settings.serverUrl);
  registerCleanup(() => bench.drop());
  await migrate(bench.url, { log: () => {} });
  const db = createDb({ connectionString: bench.url, poolMax: 4 });
  registerCleanup(() => db.$disconnect());
  // features:read: an endpoint receives only the events its creator may read (docs/webhooks.md).
  const { key } = await createKey(db, { name: 'bench', scopes: ['features:write', 'features:read', 'settings:write'] });
  const receiver = await startReceiver();
  const service = await startService(bench.url, 'webhooks', { NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE: '1' });
  const call = (tool: string, body: unknown) =>
    fetch(`http://127.0.0.1:${service.port}/api/v1/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    }).then(async (r) => (r.ok ? r.json() : Promise.reject(new Error(`${tool}: ${r.status} ${await r.text()}`))));
  await call('webhooks.create', { url: receiver.url, events: ['feature.*'] });

  // Deliveries per second: a burst of events committed at once, drained by the service's worker.
  const changes = Array.from({ length: BURST }, (_, i) => ({ entityType: 'feature', entityId: `burst-${i}`, before: null, after: { key: `burst-${i}`, enabled: true, description: null, updatedAt: new Date().toISOString() } }));
  const started = Date.now();
  await db.$transaction((tx) => recordEvents(tx, changes));
  await until(() => receiver.arrivals.size >= BURST, 120_000);
  const deliveriesPerSecond = round(BURST / ((Date.now() - started) / 1000), 0);
  console.log(`${BURST} deliveries: ${deliveriesPerSecond}/s`);

  // Lag: writes over HTTP at a steady rate; lag = arrival at the receiver − the event's createdAt.
  receiver.arrivals.clear();
  const writes: Promise<unknown>[] = [];
  let failedWrites = 0;
  let firstFailure: string | null = null;
  const writeMs: number[] = [];
  const total = LAG_RATE * LAG_SECONDS;
  const t0 = Date.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / LAG_RATE;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const sent = performance.now();
    writes.push(
      call('features.set', { key: `lag-${i}`, enabled: true }).then(
        () => writeMs.push(performance.now() - sent),
        (err: unknown) => {
          failedWrites++;
          firstFailure ??= String(err).slice(0, 300);
        },
      ),
    );
  }
  await Promise.all(writes);
  await until(() => receiver.arrivals.size >= total - failedWrites, 60_000);
  const lags = [...receiver.arrivals].map(([id, at]) => at - receiver.createdAt.get(id)!).sort((a, b) => a - b);
  writeMs.sort((a, b) => a - b);
  const [writeP50Ms, writeP99Ms] = [50, 99].map((p) => round(percentile(writeMs, p) ?? 0, 1));
  const lag = { writesPerSecond: LAG_RATE, events: lags.length, failedWrites, firstFailure, writeP50Ms, writeP99Ms, p50Ms: percentile(lags, 50), p99Ms: percentile(lags, 99), maxMs: lags[lags.length - 1] };
  console.log(`lag at ${LAG_RATE} writes/s: p50 ${lag.p50Ms} ms, p99 ${lag.p99Ms} ms, max ${lag.maxMs} ms (the writes took p50 ${writeP50Ms} ms, p99 ${writeP99Ms} ms)`);
  if (firstFailure) console.log(`${failedWrites} writes failed, the first with: ${firstFailure}`);
  await service.stop();
  const profile = settings.cpuProf ? keepProfile('webhooks') : null;
  if (profile) console.log(`service CPU profile: ${profile}`);

  // The write path with and without the outbox statement (one endpoint subscribed, so deliveries are fanned out too).
  const outbox = await outboxOverhead(db);
  console.log(`write transaction: ${outbox.writeMsWithout} ms without the outbox, ${outbox.writeMsWith} ms with it (+${outbox.overheadPct} %)`);

  const targets: TargetResult[] = [
    { name: 'webhook deliveries/s to a local receiver', value: deliveriesPerSecond, threshold: '≥ 500', met: deliveriesPerSecond >= 500 },
    { name: `webhook lag p99 (ms) at ${LAG_RATE} writes/s`, value: lag.p99Ms, threshold: '< 1000', met: lag.p99Ms < 1000 && failedWrites === 0, note: `${failedWrites} writes failed` },
    { name: 'outbox overhead on a write transaction (%)', value: outbox.overheadPct, threshold: '≤ 10', met: outbox.overheadPct <= 10 },
  ];
  return { deliveriesPerSecond, lag, outbox, targets };
}
