import { randomBytes } from 'node:crypto';
import type { DbClient, Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { AppError } from '../errors.ts';
import { TEST_EVENT } from '../events/catalogue.ts';
import { insertEvents, newEventId } from '../events/outbox.ts';
import { newSigningSecret } from '../events/signing.ts';
import type { Prisma, WebhookDeliveryStatus, WebhookEndpoint } from '../generated/prisma/client.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { sealedIn } from '../secrets/stored-secrets.ts';

/** The old secret keeps signing alongside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** An endpoint as audit entries, events and tool output show it: never its secrets. */
export function endpointSnapshot(row: WebhookEndpoint) {
  const { secret: _secret, previousSecret: _previous, failingSince: _failing, ...shown } = row;
  return plainJson(shown);
}

export async function findEndpoint(db: DbClient, id: string): Promise<WebhookEndpoint> {
  const row = await db.webhookEndpoint.findUnique({ where: { id } });
  if (!row) throw new AppError('not_found', `No webhook endpoint with id "${id}".`);
  return row;
}

/** Row lock: the audit's `before` must be the state this change replaced. */
async function lockEndpoint(tx: Tx, id: string): Promise<WebhookEndpoint> {
  await tx.$queryRaw`SELECT id FROM "WebhookEndpoint" WHERE id = ${id} FOR UPDATE`;
  return findEndpoint(tx, id);
}

export type EndpointInput = { url: string; events: string[]; description?: string | null };

export async function createEndpoint(tx: Tx, secrets: SecretBox, input: EndpointInput) {
  const secret = newSigningSecret();
  const id = `we_${randomBytes(12).toString('base64url')}`;
  const row = await tx.webhookEndpoint.create({
    data: { id, url: input.url, events: input.events, description: input.description ?? null, secret: secrets.seal(secret, sealedIn.webhookEndpoint(id)) },
  });
  return { row, secret };
}

export const listEndpoints = (db: DbClient) => db.webhookEndpoint.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

export type EndpointPatch = { url?: string; events?: string[]; description?: string | null; enabled?: boolean };

/** Enabling clears the failure record, so a re-enabled endpoint gets a full 24 h before it can be disabled again. */
export async function updateEndpoint(tx: Tx, id: string, patch: EndpointPatch) {
  if (Object.values(patch).every((v) => v === undefined)) {
    throw new AppError('invalid_request', '(body): give at least one of url, events, description, enabled.');
  }
  const before = await lockEndpoint(tx, id);
  const { enabled, ...fields } = patch;
  const state: Prisma.WebhookEndpointUpdateInput =
    enabled === undefined || enabled === before.enabled
      ? {}
      : enabled
        ? { enabled: true, disabledReason: null, failingSince: null }
        : { enabled: false, disabledReason: 'disabled with webhooks.update' };
  const after = await tx.webhookEndpoint.update({ where: { id }, data: { ...fields, ...state } });
  return { before, after };
}

export async function deleteEndpoint(tx: Tx, id: string): Promise<WebhookEndpoint> {
  const before = await lockEndpoint(tx, id);
  await tx.webhookEndpoint.delete({ where: { id } });
  return before;
}

/** The sealed secret moves to previousSecret as it is: both columns are sealed under the endpoint's context. */
export async function rotateSecret(tx: Tx, secrets: SecretBox, id: string) {
  const before = await lockEndpoint(tx, id);
  const secret = newSigningSecret();
  const previousSecretExpiresAt = new Date(Date.now() + ROTATION_OVERLAP_MS);
  const sealed = secrets.seal(secret, sealedIn.webhookEndpoint(id));
  const after = await tx.webhookEndpoint.update({ where: { id }, data: { secret: sealed, previousSecret: before.secret, previousSecretExpiresAt } });
  return { before, after, secret, previousSecretExpiresAt };
}

/** Queues a webhook.test event for one endpoint only (whatever it subscribes to, enabled or not). */
export async function sendTestEvent(tx: Tx, id: string) {
  const endpoint = await findEndpoint(tx, id);
  const eventId = newEventId();
  const object = endpointSnapshot(endpoint);
  const data = { object, changedFields: [], previousValues: {} };
  await insertEvents(tx, [{ id: eventId, type: TEST_EVENT.type, entityType: TEST_EVENT.entityType, entityId: endpoint.id, data }], endpoint.id);
  return { endpoint, eventId };
}

/** Queues one more delivery of an existing event to one endpoint; it carries the event's id as webhook-id again. */
export async function redeliver(tx: Tx, eventId: string, endpointId: string) {
  await findEndpoint(tx, endpointId);
  const event = await tx.webhookEvent.findUnique({ where: { id: eventId }, select: { id: true, type: true } });
  if (!event) throw new AppError('not_found', `No event with id "${eventId}".`);
  const delivery = await tx.webhookDelivery.create({
    data: { id: `dlv_${randomBytes(16).toString('hex')}`, eventId, endpointId },
  });
  return { delivery, event };
}

export type DeliveryFilter = {
  endpointId: string;
  status?: WebhookDeliveryStatus;
  eventId?: string;
  limit: number;
  cursor?: { at: Date; id: string };
};

/** Deliveries of one endpoint, newest first, each with its attempts (oldest first). */
export async function listDeliveries(db: DbClient, filter: DeliveryFilter) {
  await findEndpoint(db, filter.endpointId);
  const { endpointId, status, eventId, cursor, limit } = filter;
  const rows = await db.webhookDelivery.findMany({
    where: {
      endpointId,
      ...(status ? { status } : {}),
      ...(eventId ? { eventId } : {}),
      ...(cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {}),
    },
    include: { event: { select: { type: true } }, attemptLog: { orderBy: { at: 'asc' } } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  return { deliveries: rows.slice(0, limit), hasMore: rows.length > limit };
}

type StatsRow = { pending: bigint; due: bigint; oldestDue: Date | null; failed24h: bigint; succeeded24h: bigint; disabledEndpoints: bigint };

/** Queue depth and lag across all instances. */
export async function deliveryStats(db: DbClient) {
  const [row] = await db.$queryRaw<StatsRow[]>`
    SELECT
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'pending') AS pending,
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'pending' AND "nextAttemptAt" <= now()) AS due,
      (SELECT min("nextAttemptAt") FROM "WebhookDelivery" WHERE status = 'pending' AND "nextAttemptAt" <= now()) AS "oldestDue",
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'failed' AND "completedAt" > now() - interval '24 hours') AS "failed24h",
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'succeeded' AND "completedAt" > now() - interval '24 hours') AS "succeeded24h",
      (SELECT count(*) FROM "WebhookEndpoint" WHERE NOT enabled) AS "disabledEndpoints"`;
  return {
    pending: Number(row.pending),
    due: Number(row.due),
    lagSeconds: row.oldestDue ? Math.max(0, (Date.now() - row.oldestDue.getTime()) / 1000) : 0,
    failedLast24h: Number(row.failed24h),
    succeededLast24h: Number(row.succeeded24h),
    disabledEndpoints: Number(row.disabledEndpoints),
  };
}
