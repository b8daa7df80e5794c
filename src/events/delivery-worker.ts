import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db, Tx } from '../db/client.ts';
import { isDelivered, retryDelayMs, STORED_RESPONSE_BYTES, truncateUtf8 } from '../domain/webhook-retry.ts';
import { OutboundError, type SafeFetch } from '../outbound/safe-fetch.ts';
import { endpointSnapshot } from '../services/webhooks.ts';
import { recordEvents } from './outbox.ts';
import { webhookHeaders } from './signing.ts';

/** Receivers must answer within this; the claim's lease is longer, so a slow answer is never sent twice. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Larger answers are cut off and the attempt fails; receivers should answer with an empty 2xx. */
const MAX_RESPONSE_BYTES = 64 * 1024;

type Claimed = {
  id: string;
  attempts: number;
  eventId: string;
  type: string;
  entityType: string;
  entityId: string;
  sequence: bigint;
  data: string;
  eventCreatedAt: Date;
  endpointId: string;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
};

export type DeliveryWorker = { stop: () => Promise<void> };

export type WorkerDeps = { db: Db; config: Config; log: FastifyBaseLogger; fetch: SafeFetch };
type Deps = WorkerDeps & { withConnection: <T>(work: () => Promise<T>) => Promise<T>; record: (item: Recorded) => Promise<void> };

/**
 * The worker's share of the connection pool: its statements queue here instead of taking every pooled connection
 * while many deliveries finish at once, which would starve the requests' transactions.
 */
const WORKER_CONNECTIONS = 2;

function limiter(max: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/**
 * Sends due deliveries from inside the service. Each instance claims with FOR UPDATE SKIP LOCKED, so instances
 * share the queue without sending a delivery twice; a claim moves the delivery's next attempt to the end of a lease,
 * so one claimed by an instance that died falls due again when the lease runs out. Idle workers poll (every
 * WEBHOOK_POLL_INTERVAL); a full batch is followed by the next claim at once.
 */
export function startDeliveryWorker(workerDeps: WorkerDeps): DeliveryWorker {
  const base = { ...workerDeps, withConnection: limiter(WORKER_CONNECTIONS) };
  const deps: Deps = { ...base, record: createRecorder(base) };
  const { concurrency, pollIntervalMs } = deps.config.webhooks;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let wake: (() => void) | null = null;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const loop = async () => {
    while (!stopping) {
      const free = concurrency - inFlight.size;
      if (free <= 0) {
        await Promise.race(inFlight);
        continue;
      }
      let batch: Claimed[] = [];
      try {
        batch = await claim(deps, free);
      } catch (err) {
        deps.log.warn({ err }, 'webhook worker could not claim deliveries');
      }
      for (const delivery of batch) {
        const work = deliver(deps, delivery).catch((err) => deps.log.error({ err, delivery: delivery.id }, 'webhook delivery failed to record'));
        const tracked = work.finally(() => inFlight.delete(tracked));
        inFlight.add(tracked);
      }
      if (batch.length < free && !stopping) await sleep(pollIntervalMs);
    }
  };

  const running = concurrency > 0 ? loop() : Promise.resolve();
  return {
    // Claims nothing more and lets the deliveries in flight finish (each is bounded by the 10 s timeout), so none
    // is left claimed; a process killed before that leaves them to the lease.
    async stop() {
      stopping = true;
      wake?.();
      await running;
      await Promise.allSettled([...inFlight]);
    },
  };
}

async function claim({ db, config, withConnection }: Deps, limit: number): Promise<Claimed[]> {
  return withConnection(() => db.$queryRaw<Claimed[]>`
    WITH due AS (
      SELECT id FROM "WebhookDelivery"
      WHERE status = 'pending' AND "nextAttemptAt" <= now()
      ORDER BY "nextAttemptAt"
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE "WebhookDelivery" d SET "nextAttemptAt" = now() + ${config.webhooks.leaseMs}::float8 * interval '1 millisecond'
    FROM due, "WebhookEvent" e, "WebhookEndpoint" p
    WHERE d.id = due.id AND e.id = d."eventId" AND p.id = d."endpointId"
    RETURNING d.id, d.attempts, e.id AS "eventId", e.type, e."entityType", e."entityId", e.sequence, e.data::text AS data,
              e."createdAt" AS "eventCreatedAt", p.id AS "endpointId", p.url, p.enabled, p.secret, p."previousSecret",
              p."previousSecretExpiresAt"`);
}

/** The body every attempt of an event sends, byte for byte (the stored data is json, so its key order is kept). */
export function eventBody(d: Pick<Claimed, 'eventId' | 'type' | 'eventCreatedAt' | 'entityType' | 'entityId' | 'sequence' | 'data'>): string {
  const head = JSON.stringify({ id: d.eventId, type: d.type, createdAt: d.eventCreatedAt.toISOString() });
  const coordinates = JSON.stringify({ entityType: d.entityType, entityId: d.entityId, sequence: Number(d.sequence) });
  const rest = d.data.trim().slice(1, -1).trim();
  return `${head.slice(0, -1)},"data":${coordinates.slice(0, -1)}${rest ? `,${rest}` : ''}}}`;
}

type Outcome = { statusCode: number | null; error: string | null; responseBody: string | null; latencyMs: number };

async function deliver(deps: Deps, d: Claimed): Promise<void> {
  if (!d.enabled) {
    await deps.record({ d, outcome: { statusCode: null, error: 'endpoint disabled', responseBody: null, latencyMs: 0 }, final: true });
    return;
  }
  const now = new Date();
  const secrets = d.previousSecret && d.previousSecretExpiresAt && d.previousSecretExpiresAt > now ? [d.secret, d.previousSecret] : [d.secret];
  const body = eventBody(d);
  const started = performance.now();
  let outcome: Outcome;
  try {
    const res = await deps.fetch(d.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...webhookHeaders(d.eventId, now, body, secrets) },
      body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBytes: MAX_RESPONSE_BYTES,
      maxRedirects: 0,
    });
    const text = truncateUtf8(res.text(), STORED_RESPONSE_BYTES);
    outcome = { statusCode: res.status, error: isDelivered(res.status) ? null : `HTTP ${res.status}`, responseBody: text || null, latencyMs: elapsed(started) };
  } catch (err) {
    const message = err instanceof OutboundError ? `${err.kind}: ${err.message}` : 'network: the request failed';
    outcome = { statusCode: null, error: message, responseBody: null, latencyMs: elapsed(started) };
  }
  await deps.record({ d, outcome, final: false });
}

const elapsed = (started: number) => Math.round(performance.now() - started);

type Recorded = { d: Claimed; outcome: Outcome; final: boolean };

/**
 * Writes attempts in batches: every outcome that arrives while a batch is being written goes into the next one, so
 * a busy worker records many deliveries per statement and uses one connection for it, not one per delivery.
 */
function createRecorder(deps: Omit<Deps, 'record'>) {
  let queue: { item: Recorded; done: (err?: unknown) => void }[] = [];
  let writing = false;
  const flush = async () => {
    if (writing || queue.length === 0) return;
    writing = true;
    const batch = queue;
    queue = [];
    try {
      await recordBatch(deps, batch.map((b) => b.item));
      for (const b of batch) b.done();
    } catch (err) {
      for (const b of batch) b.done(err);
    } finally {
      writing = false;
      void flush();
    }
  };
  return (item: Recorded) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, done: (err) => (err === undefined ? resolve() : reject(err)) });
      void flush();
    });
}

/**
 * One statement per batch: the attempts, each delivery's next state (succeeded; pending again after the schedule's
 * wait; or failed) and the endpoints' failure streaks. A streak starts at the first failure after a success and
 * ends at the next success; an endpoint row is written only when that changes, so successful deliveries do not
 * queue on its lock. An endpoint failing for WEBHOOK_DISABLE_AFTER is then disabled.
 */
async function recordBatch({ db, config, log, withConnection }: Omit<Deps, 'record'>, items: readonly Recorded[]): Promise<void> {
  const rows = items.map(({ d, outcome, final }) => {
    const succeeded = outcome.error === null;
    const attempts = d.attempts + 1;
    const delay = succeeded || final ? null : retryDelayMs(attempts, config.webhooks.retryScheduleMs);
    return { d, outcome, final, succeeded, attempts, delay, status: succeeded ? 'succeeded' : delay === null ? 'failed' : 'pending' };
  });
  const col = <T>(pick: (r: (typeof rows)[number]) => T) => rows.map(pick);
  const failing = await withConnection(() => db.$queryRaw<{ endpointId: string; failingSince: Date }[]>`
    WITH o AS (
      SELECT * FROM unnest(${col((r) => r.d.id)}::text[], ${col(() => `att_${randomBytes(12).toString('base64url')}`)}::text[],
                           ${col((r) => r.outcome.statusCode)}::int[], ${col((r) => r.outcome.latencyMs)}::int[],
                           ${col((r) => r.outcome.error)}::text[], ${col((r) => r.outcome.responseBody)}::text[],
                           ${col((r) => r.attempts)}::int[], ${col((r) => r.status)}::text[], ${col((r) => r.delay ?? 0)}::float8[],
                           ${col((r) => r.d.endpointId)}::text[], ${col((r) => r.succeeded)}::boolean[], ${col((r) => r.final)}::boolean[])
        AS o(id, "attemptId", "statusCode", "latencyMs", error, "responseBody", attempts, status, delay, "endpointId", succeeded, final)
    ), attempt AS (
      INSERT INTO "WebhookAttempt" (id, "deliveryId", "statusCode", "latencyMs", error, "responseBody")
      SELECT "attemptId", id, "statusCode", "latencyMs", error, "responseBody" FROM o
    ), streak AS (
      UPDATE "WebhookEndpoint" p SET "failingSince" = CASE WHEN s.succeeded THEN NULL ELSE now() END
      FROM (SELECT "endpointId", bool_or(succeeded) AS succeeded FROM o WHERE NOT final GROUP BY "endpointId") s
      WHERE p.id = s."endpointId" AND (p."failingSince" IS NULL) = NOT s.succeeded
    ), delivery AS (
      UPDATE "WebhookDelivery" d SET attempts = o.attempts, status = o.status::"WebhookDeliveryStatus",
        "nextAttemptAt" = now() + o.delay * interval '1 millisecond',
        "completedAt" = CASE WHEN o.status = 'pending' THEN NULL ELSE now() END
      FROM o WHERE d.id = o.id
    )
    SELECT p.id AS "endpointId", p."failingSince" FROM "WebhookEndpoint" p
    WHERE p.id IN (SELECT "endpointId" FROM o WHERE NOT succeeded AND NOT final) AND p."failingSince" IS NOT NULL`);
  for (const { endpointId, failingSince } of failing) {
    if (Date.now() - failingSince.getTime() < config.webhooks.disableAfterMs) continue;
    await withConnection(() => db.$transaction((tx) => disableFailingEndpoint(tx, endpointId)));
    log.warn({ endpoint: endpointId }, 'webhook endpoint disabled after failing deliveries');
  }
}

async function disableFailingEndpoint(tx: Tx, endpointId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "WebhookEndpoint" WHERE id = ${endpointId} FOR UPDATE`;
  const before = await tx.webhookEndpoint.findUnique({ where: { id: endpointId } });
  // Another instance got there first, or a success ended the streak meanwhile.
  if (!before?.enabled || !before.failingSince) return;
  const failingSince = before.failingSince;
  const after = await tx.webhookEndpoint.update({
    where: { id: endpointId },
    data: { enabled: false, disabledReason: `deliveries failing since ${failingSince.toISOString()}` },
  });
  const change = { entityType: 'webhook_endpoint', entityId: endpointId, before: endpointSnapshot(before), after: endpointSnapshot(after) };
  await tx.auditEntry.create({ data: { tool: DISABLING_TOOL, apiKeyId: null, ...change } });
  await recordEvents(tx, [change]);
}

/** The `tool` of the audit entry the service writes when it disables a failing endpoint. */
export const DISABLING_TOOL = 'webhooks.delivery';
