import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { isDelivered, STORED_RESPONSE_BYTES, truncateUtf8 } from '../domain/webhook-retry.ts';
import { OutboundError, type SafeFetch } from '../outbound/safe-fetch.ts';
import { readScopesOfType } from './catalogue.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { sealedIn } from '../secrets/stored-secrets.ts';
import { claim, recordAttempts, release, type Claimed, type Outcome, type QueueDeps, type Recorded } from './delivery-queue.ts';
import { webhookHeaders } from './signing.ts';
import { orderWebhook as acpOrderWebhook } from '../protocols/acp/order-webhook.ts';
import { orderWebhook as ucpOrderWebhook, platformDenial } from '../protocols/ucp/order-webhook.ts';
import { PLATFORM_FORMATS } from '../services/platform-webhooks.ts';
import { signingKeys, type SigningKey } from '../protocols/ucp/signing.ts';

/** Receivers must answer within this; the claim's lease is longer, so a slow answer is never sent twice. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Larger answers are cut off and the attempt fails; receivers should answer with an empty 2xx. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export type DeliveryWorker = { stop: () => Promise<void> };

export type WorkerDeps = { db: Db; config: Config; log: FastifyBaseLogger; fetch: SafeFetch; secrets: SecretBox };

/**
 * Statements the worker runs at once, by construction: one claim, one batch of attempts. The service gives it a pool
 * of this size of its own (src/server.ts), so its statements never queue behind the requests' transactions.
 */
export const DELIVERY_WORKER_CONNECTIONS = 2;

/**
 * Sends due deliveries from inside the service (docs/webhooks.md, "Workers"). Up to WEBHOOK_CONCURRENCY requests
 * are in flight; the instance holds at most twice that many deliveries (claimed and not yet recorded), and claims
 * again only when at least WEBHOOK_CONCURRENCY of those places are free, so every claim is one statement for a
 * batch and the next batch is already claimed while the current one is being sent. A slot is free again as soon as
 * its request ends: recording happens in batches beside the sending (createRecorder), and a delivery stays held,
 * under its lease, until its attempt is written. Idle workers poll every WEBHOOK_POLL_INTERVAL; a claim that filled
 * its batch is followed by the next one at once.
 */
export function startDeliveryWorker(deps: WorkerDeps): DeliveryWorker {
  const record = createRecorder(deps);
  const { concurrency, pollIntervalMs } = deps.config.webhooks;
  const capacity = 2 * concurrency;
  const waiting: Claimed[] = [];
  const held = new Set<Promise<void>>();
  let sending = 0;
  let stopping = false;
  // The loop's pause: a timer (idle polling), or until a held delivery is recorded (room to claim); stop() ends either.
  let wake: (() => void) | null = null;
  const pause = (ms: number | null) =>
    new Promise<void>((resolve) => {
      const timer = ms === null ? undefined : setTimeout(() => wake?.(), ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  let roomWanted = false;

  const send = () => {
    while (sending < concurrency && waiting.length > 0) {
      const d = waiting.shift()!;
      sending++;
      const work = attempt(deps, d)
        .finally(() => {
          sending--;
          send();
        })
        .then((item) => record(item))
        .catch((err) => deps.log.error({ err, delivery: d.id }, 'webhook delivery failed to record'));
      const tracked = work.finally(() => {
        held.delete(tracked);
        if (roomWanted) wake?.();
      });
      held.add(tracked);
    }
  };

  const loop = async () => {
    while (!stopping) {
      const room = capacity - held.size - waiting.length;
      if (room < concurrency) {
        roomWanted = true;
        await pause(null);
        roomWanted = false;
        continue;
      }
      let batch: Claimed[] = [];
      try {
        batch = await claim(deps, room);
      } catch (err) {
        deps.log.warn({ err }, 'webhook worker could not claim deliveries');
      }
      waiting.push(...batch);
      send();
      if (batch.length < room && !stopping) await pause(pollIntervalMs);
    }
  };

  const running = concurrency > 0 ? loop() : Promise.resolve();
  return {
    // Claims nothing more, hands back what was claimed but not sent yet, and lets the requests in flight finish
    // (each bounded by the 10 s timeout) and their attempts be recorded, so none is left claimed; a process killed
    // before that leaves them to the lease.
    async stop() {
      stopping = true;
      wake?.();
      await running;
      const unsent = waiting.splice(0);
      await release(deps, unsent.map((d) => d.id)).catch((err) => deps.log.warn({ err }, 'webhook worker could not release its claims'));
      await Promise.allSettled([...held]);
    },
  };
}

/** The body every attempt of an event sends, byte for byte (the stored data is json, so its key order is kept). */
export function eventBody(d: Pick<Claimed, 'eventId' | 'type' | 'eventCreatedAt' | 'entityType' | 'entityId' | 'sequence' | 'data'>): string {
  const head = JSON.stringify({ id: d.eventId, type: d.type, createdAt: d.eventCreatedAt.toISOString() });
  const coordinates = JSON.stringify({ entityType: d.entityType, entityId: d.entityId, sequence: Number(d.sequence) });
  const rest = d.data.trim().slice(1, -1).trim();
  return `${head.slice(0, -1)},"data":${coordinates.slice(0, -1)}${rest ? `,${rest}` : ''}}}`;
}

/**
 * Why the endpoint's creator may not receive this event now, or null: the creator is gone, or lacks a read scope of
 * the event's family (docs/webhooks.md, "Who receives what").
 */
function creatorDenial(d: Claimed): string | null {
  if (d.creatorGone !== null) return d.creatorGone;
  const held = new Set(d.creatorScopes);
  const missing = readScopesOfType(d.type).filter((scope) => !held.has(scope));
  return missing.length > 0 ? `the creator lacks ${missing.join(', ')}` : null;
}

/**
 * Sends one delivery (a disabled endpoint's is not sent: it fails for good; one its creator may not read is skipped);
 * the outcome is recorded after.
 */
async function attempt(deps: WorkerDeps, d: Claimed): Promise<Recorded> {
  if (!d.enabled) return { d, outcome: { statusCode: null, error: 'endpoint disabled', responseBody: null, latencyMs: 0 }, final: true };
  const denied = PLATFORM_FORMATS.includes(d.format) ? (d.creatorGone ?? platformDenial(d, d.creatorKeyId)) : creatorDenial(d);
  if (denied !== null) return { d, skipped: denied };
  const now = new Date();
  let message: { body: string; headers: Record<string, string> };
  try {
    message = await messageOf(deps, d, now);
  } catch (err) {
    deps.log.error({ err, endpoint: d.endpointId }, 'webhook signing secret does not open');
    return { d, outcome: { statusCode: null, error: 'secret: the signing secret does not open with SECRETS_KEY', responseBody: null, latencyMs: 0 }, final: false };
  }
  const { body } = message;
  const started = performance.now();
  let outcome: Outcome;
  try {
    const res = await deps.fetch(d.url, {
      method: 'POST',
      headers: message.headers,
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
  return { d, outcome, final: false };
}

/**
 * What one attempt sends, by the endpoint's format: a UCP platform's order entity signed with the service's UCP key;
 * an ACP platform's order event signed with Merchant-Signature under the endpoint's current secret (the header has
 * room for one signature, so a rotation's old secret does not sign); else the Standard Webhooks event.
 */
async function messageOf(deps: WorkerDeps, d: Claimed, now: Date): Promise<{ body: string; headers: Record<string, string> }> {
  if (d.format === 'ucp') return ucpOrderWebhook(d, await currentSigningKey(deps, now), publicOrigin(deps.config), now);
  if (d.format === 'acp') {
    const secret = deps.secrets.open(d.secret, sealedIn.webhookEndpoint(d.endpointId));
    return acpOrderWebhook({ eventId: d.eventId, eventType: d.type, data: d.data, sessionId: d.sessionId ?? '' }, secret, publicOrigin(deps.config), now);
  }
  return standardMessage(deps.secrets, d, now);
}

/** A Standard Webhooks delivery: the event envelope, signed with the endpoint's secrets. */
function standardMessage(box: SecretBox, d: Claimed, now: Date): { body: string; headers: Record<string, string> } {
  const body = eventBody(d);
  return { body, headers: { 'content-type': 'application/json', ...webhookHeaders(d.eventId, now, body, signingSecrets(box, d, now)) } };
}

const publicOrigin = (config: Config) => config.publicBaseUrl ?? `http://${config.host}:${config.port}`;

/** The UCP key that signs now (the newest), read at most once a minute per worker: a rotation takes effect within it. */
const signers = new WeakMap<Db, { key: SigningKey; at: number }>();
async function currentSigningKey(deps: WorkerDeps, now: Date): Promise<SigningKey> {
  let signer = signers.get(deps.db);
  if (!signer || now.getTime() - signer.at > 60_000) signers.set(deps.db, (signer = { key: (await signingKeys(deps.db, deps.secrets))[0], at: now.getTime() }));
  return signer.key;
}

/** The secrets that sign now (during a rotation the new one, then the old one), opened per delivery (a few µs each). */
function signingSecrets(box: SecretBox, d: Claimed, now: Date): string[] {
  const context = sealedIn.webhookEndpoint(d.endpointId);
  const current = box.open(d.secret, context);
  return d.previousSecret && d.previousSecretExpiresAt && d.previousSecretExpiresAt > now ? [current, box.open(d.previousSecret, context)] : [current];
}

const elapsed = (started: number) => Math.round(performance.now() - started);

/**
 * Writes attempts in batches: every outcome that arrives while a batch is being written goes into the next one, so
 * a busy worker records many deliveries per statement and uses one connection for it, not one per delivery.
 */
function createRecorder(deps: QueueDeps) {
  let queue: { item: Recorded; done: (err?: unknown) => void }[] = [];
  let writing = false;
  const flush = async () => {
    if (writing || queue.length === 0) return;
    writing = true;
    const batch = queue;
    queue = [];
    try {
      await recordAttempts(deps, batch.map((b) => b.item));
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
