// The delivery queue's SQL (docs/webhooks.md, "Workers"): claiming due deliveries, handing back claimed ones that
// were never sent, and recording attempts. Each is one statement for a whole batch, so the worker's round trips do
// not grow with the number of deliveries.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { queryRows, type Db, type Tx } from '../db/client.ts';
import { dueRows, leaseEnd } from '../db/due-rows.ts';
import { retryDelayMs } from '../domain/webhook-retry.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { endpointSnapshot } from '../services/webhooks.ts';
import { recordEvents } from './outbox.ts';

export type Claimed = {
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
  /** Why the endpoint's creator can read nothing now (no creator, key or grant revoked, expired or gone); else null. */
  creatorGone: string | null;
  /** The scopes the creator holds now: the key's, and of those only the ones its grant has when it acted through one. */
  creatorScopes: string[] | null;
  /** `standard`, or `ucp` / `acp`: a checkout platform's order webhook (docs/agentic-checkout.md). */
  format: string;
  creatorKeyId: string | null;
  /** For a platform endpoint and an order event: the key owning the checkout session (of the endpoint's protocol) the order came from, if any. */
  sessionOwner: string | null;
  /** …and that session's fulfillment (JSON text), for the order's shipping destination. */
  sessionFulfillment: string | null;
  /** …and that session's id (ACP's Order names it). */
  sessionId: string | null;
};

export type Outcome = { statusCode: number | null; error: string | null; responseBody: string | null; latencyMs: number };
/** `final`: no retry whatever the outcome (the endpoint is disabled). `skipped`: not sent, and why. */
export type Recorded = { d: Claimed; outcome: Outcome; final: boolean } | { d: Claimed; skipped: string };

export type QueueDeps = { db: Db; config: Config; log: FastifyBaseLogger };

/**
 * The checkout session (alias cs) an order event's order was placed from, for a platform endpoint only, and only a
 * session of the endpoint's own protocol: a platform speaking both gets each order once, in the protocol it used.
 * Joined once per delivery (orderId is unique), not looked up once per column.
 */
const fromPlatformSession = Prisma.sql`p.format IN ('ucp', 'acp') AND cs.protocol = p.format AND e."entityType" = 'order' AND cs."orderId" = e."entityId"`;

/**
 * Takes up to `limit` due deliveries with FOR UPDATE SKIP LOCKED, so instances claiming at the same time get
 * different rows, and moves each one's next attempt to the end of the lease: it is this instance's until then, and
 * falls due again for any instance if this one dies holding it. Each comes with its endpoint's creator as it is now
 * (primary-key joins of the same statement, no query per delivery), so the worker checks the creator may still read
 * the event before sending it. A grant's life is its authorization server record (`Grant:<id>`), which ends when
 * the grant expires or is revoked.
 */
export async function claim({ db, config }: QueueDeps, limit: number): Promise<Claimed[]> {
  return queryRows<Claimed>(db, Prisma.sql`
    WITH ${dueRows('WebhookDelivery', limit)}
    UPDATE "WebhookDelivery" d SET "nextAttemptAt" = ${leaseEnd(config.webhooks.leaseMs)}
    FROM due, "WebhookEvent" e, "WebhookEndpoint" p
      LEFT JOIN "ApiKey" k ON k.id = p."creatorKeyId"
      LEFT JOIN "OAuthGrant" g ON g.id = p."creatorGrantId"
      LEFT JOIN "OAuthRecord" r ON r.id = 'Grant:' || p."creatorGrantId"
      LEFT JOIN LATERAL (SELECT cs."apiKeyId", cs.fulfillment, cs.id FROM "CheckoutSession" cs WHERE ${fromPlatformSession}) cs ON true
    WHERE d.id = due.id AND e.id = d."eventId" AND p.id = d."endpointId"
    RETURNING d.id, d.attempts, e.id AS "eventId", e.type, e."entityType", e."entityId", e.sequence, e.data::text AS data,
              e."createdAt" AS "eventCreatedAt", p.id AS "endpointId", p.url, p.enabled, p.secret, p."previousSecret",
              p."previousSecretExpiresAt",
              CASE
                WHEN p."creatorKeyId" IS NULL THEN 'the endpoint has no recorded creator: re-save it with webhooks.update'
                WHEN k.id IS NULL THEN 'the creator key no longer exists'
                WHEN k."revokedAt" IS NOT NULL THEN 'the creator key was revoked'
                WHEN k."expiresAt" <= now() THEN 'the creator key expired'
                WHEN k."secretHash" IS DISTINCT FROM p."creatorKeySecretHash" THEN 'the creator key was rotated since: re-save the endpoint with webhooks.update'
                WHEN p."creatorGrantId" IS NULL THEN NULL
                WHEN g.id IS NULL THEN 'the creator grant no longer exists'
                WHEN g."revokedAt" IS NOT NULL THEN 'the creator grant was revoked'
                WHEN r.id IS NULL OR r."expiresAt" <= now() THEN 'the creator grant expired'
              END AS "creatorGone",
              CASE WHEN g.id IS NULL THEN k.scopes ELSE ARRAY(SELECT unnest(k.scopes) INTERSECT SELECT unnest(g.scopes)) END AS "creatorScopes",
              p.format, p."creatorKeyId",
              cs."apiKeyId" AS "sessionOwner", cs.fulfillment::text AS "sessionFulfillment", cs.id AS "sessionId"`);
}

/** Ends the lease of claimed deliveries that were never sent (at shutdown), so any instance may take them at once. */
export async function release({ db }: QueueDeps, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await queryRows(db, Prisma.sql`
    UPDATE "WebhookDelivery" SET "nextAttemptAt" = now() WHERE id = ANY(${ids}::text[]) AND status = 'pending'`);
}

/**
 * One statement per batch: the attempts, each delivery's next state (succeeded; pending again after the schedule's
 * wait; failed; or skipped, with no attempt) and the endpoints' failure streaks. A streak starts at the first failure
 * after a success and ends at the next success; an endpoint row is written only when that changes, so successful
 * deliveries do not queue on its lock. An endpoint failing for WEBHOOK_DISABLE_AFTER is then disabled. A skipped
 * delivery says nothing about the receiver, so it neither starts nor ends a streak.
 */
export async function recordAttempts(deps: QueueDeps, items: readonly Recorded[]): Promise<void> {
  const { db, config, log } = deps;
  const rows = items.map((item) => {
    const { d } = item;
    if ('skipped' in item) {
      const outcome: Outcome = { statusCode: null, error: null, responseBody: null, latencyMs: 0 };
      return { d, outcome, final: true, succeeded: false, attempts: d.attempts, delay: null, status: 'skipped', skipped: item.skipped };
    }
    const { outcome, final } = item;
    const succeeded = outcome.error === null;
    const attempts = d.attempts + 1;
    const delay = succeeded || final ? null : retryDelayMs(attempts, config.webhooks.retryScheduleMs);
    return { d, outcome, final, succeeded, attempts, delay, status: succeeded ? 'succeeded' : delay === null ? 'failed' : 'pending', skipped: null };
  });
  const col = <T>(pick: (r: (typeof rows)[number]) => T) => rows.map(pick);
  const failing = await queryRows<{ endpointId: string; failingSince: Date }>(db, Prisma.sql`
    WITH o AS (
      SELECT * FROM unnest(${col((r) => r.d.id)}::text[], ${col(() => `att_${randomBytes(12).toString('base64url')}`)}::text[],
                           ${col((r) => r.outcome.statusCode)}::int[], ${col((r) => r.outcome.latencyMs)}::int[],
                           ${col((r) => r.outcome.error)}::text[], ${col((r) => r.outcome.responseBody)}::text[],
                           ${col((r) => r.attempts)}::int[], ${col((r) => r.status)}::text[], ${col((r) => r.delay ?? 0)}::float8[],
                           ${col((r) => r.d.endpointId)}::text[], ${col((r) => r.succeeded)}::boolean[], ${col((r) => r.final)}::boolean[],
                           ${col((r) => r.skipped)}::text[])
        AS o(id, "attemptId", "statusCode", "latencyMs", error, "responseBody", attempts, status, delay, "endpointId", succeeded, final, skipped)
    ), attempt AS (
      INSERT INTO "WebhookAttempt" (id, "deliveryId", "statusCode", "latencyMs", error, "responseBody")
      SELECT "attemptId", id, "statusCode", "latencyMs", error, "responseBody" FROM o WHERE skipped IS NULL
    ), streak AS (
      UPDATE "WebhookEndpoint" p SET "failingSince" = CASE WHEN s.succeeded THEN NULL ELSE now() END
      FROM (SELECT "endpointId", bool_or(succeeded) AS succeeded FROM o WHERE NOT final GROUP BY "endpointId") s
      WHERE p.id = s."endpointId" AND (p."failingSince" IS NULL) = NOT s.succeeded
    ), delivery AS (
      UPDATE "WebhookDelivery" d SET attempts = o.attempts, status = o.status::"WebhookDeliveryStatus",
        "nextAttemptAt" = now() + o.delay * interval '1 millisecond',
        "completedAt" = CASE WHEN o.status = 'pending' THEN NULL ELSE now() END, "skippedReason" = o.skipped
      FROM o WHERE d.id = o.id
    )
    SELECT p.id AS "endpointId", p."failingSince" FROM "WebhookEndpoint" p
    WHERE p.id IN (SELECT "endpointId" FROM o WHERE NOT succeeded AND NOT final) AND p."failingSince" IS NOT NULL`);
  for (const { endpointId, failingSince } of failing) {
    if (Date.now() - failingSince.getTime() < config.webhooks.disableAfterMs) continue;
    await db.$transaction((tx) => disableFailingEndpoint(tx, endpointId));
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
