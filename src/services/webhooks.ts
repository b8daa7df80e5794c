import { randomBytes } from 'node:crypto';
import type { DbClient, Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { AppError } from '../errors.ts';
import { readScopesOfSubscription, subscribesTo, TEST_EVENT } from '../events/catalogue.ts';
import { insertEvents, newEventId } from '../events/outbox.ts';
import { newSigningSecret } from '../events/signing.ts';
import type { Prisma, WebhookDeliveryStatus, WebhookEndpoint } from '../generated/prisma/client.ts';
import type { Principal } from '../registry/define-tool.ts';
import { insufficientScope } from '../registry/scopes.ts';
import { checkPlatformEvents, platformCreator, PLATFORM_FORMATS } from './platform-webhooks.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { sealedIn } from '../secrets/stored-secrets.ts';

/** The old secret keeps signing alongside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** An endpoint as audit entries, events and tool output show it: never its secrets. */
export function endpointSnapshot(row: WebhookEndpoint) {
  const { secret: _secret, previousSecret: _previous, failingSince: _failing, creatorKeySecretHash: _keyHash, ...shown } = row;
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

/**
 * The principal an endpoint's deliveries are checked against (docs/webhooks.md, "Who receives what"), with the key's
 * secret as it was: a rotation ends what the old secret set up, as it ends the old secret.
 */
export type EndpointCreator = { creatorKeyId: string; creatorGrantId: string | null; creatorKeySecretHash: string };

/**
 * Checks that the caller may read everything a subscription delivers: the read scopes of every event family its
 * patterns reach ("*": all of them), besides the tools' settings:write. The caller must also be a principal the
 * delivery worker can check again later: an API key of this service, directly or through a grant of its own
 * authorization server (a token of an external issuer names no key). Returns it as the endpoint's creator.
 */
export async function subscriptionCreator(db: DbClient, principal: Principal | null, events: readonly string[]): Promise<EndpointCreator> {
  const needed = readScopesOfSubscription(events);
  const missing = needed.filter((scope) => !principal?.scopes.has(scope));
  const challenge = ['settings:write' as const, ...needed];
  if (!principal || missing.length > 0) {
    throw insufficientScope(
      challenge,
      `Receiving ${events.join(', ')} needs ${needed.join(', ')} besides settings:write, the scopes that read the data these events carry; this ${principal?.grantId ? 'grant' : 'key'} lacks ${missing.join(', ')}.`,
      principal?.grantId !== undefined,
    );
  }
  const key = await db.apiKey.findUnique({ where: { id: principal.keyId }, select: { id: true, secretHash: true } });
  if (!key) {
    throw insufficientScope(
      challenge,
      'Webhook endpoints are managed with an API key of this service, directly or through its own OAuth server: every delivery is checked against its creator’s access, which a token of another issuer does not let the service check.',
    );
  }
  return { creatorKeyId: key.id, creatorGrantId: principal.grantId ?? null, creatorKeySecretHash: key.secretHash };
}

/** `format` `acp`: an ACP platform's order webhook (docs/agentic-checkout.md); the default is Standard Webhooks. */
export type EndpointInput = { url: string; events: string[]; description?: string | null; format?: 'standard' | 'acp' };

export async function createEndpoint(tx: Tx, secrets: SecretBox, input: EndpointInput, creator: EndpointCreator) {
  const secret = newSigningSecret();
  const id = `we_${randomBytes(12).toString('base64url')}`;
  const row = await tx.webhookEndpoint.create({
    data: {
      id, url: input.url, events: input.events, description: input.description ?? null, format: input.format ?? 'standard',
      secret: secrets.seal(secret, sealedIn.webhookEndpoint(id)), ...creator,
    },
  });
  return { row, secret };
}

export const listEndpoints = (db: DbClient) => db.webhookEndpoint.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

export type EndpointPatch = { url?: string; events?: string[]; description?: string | null; enabled?: boolean };

/**
 * Enabling clears the failure record, so a re-enabled endpoint gets a full 24 h before it can be disabled again.
 * Setting url or events, or enabled: true, decides what is delivered where from now on: the caller must be able to
 * read all of it and becomes the endpoint's creator. A description, or disabling, changes neither.
 */
export async function updateEndpoint(tx: Tx, id: string, patch: EndpointPatch, principal: Principal | null) {
  // The input schema already refuses a body with only `id`; this is one with only `id` and `dryRun`.
  if (Object.values(patch).every((v) => v === undefined)) {
    throw new AppError('nothing_to_change', '(body): give at least one of url, events, description, enabled.');
  }
  const before = await lockEndpoint(tx, id);
  const resaved = patch.url !== undefined || patch.events !== undefined || patch.enabled === true;
  // A platform's endpoint stays its platform key's: the caller must be allowed to re-save it, and the key is checked
  // again (and its current secret recorded, so a rotated key's endpoint works again once re-saved).
  const platform = PLATFORM_FORMATS.includes(before.format);
  if (platform && patch.events) checkPlatformEvents(patch.events);
  const allowed = resaved ? await subscriptionCreator(tx, principal, patch.events ?? before.events) : {};
  const creator = resaved && platform ? await platformCreator(tx, before.creatorKeyId) : allowed;
  const { enabled, ...fields } = patch;
  const state: Prisma.WebhookEndpointUpdateInput =
    enabled === undefined || enabled === before.enabled
      ? {}
      : enabled
        ? { enabled: true, disabledReason: null, failingSince: null }
        : { enabled: false, disabledReason: 'disabled with webhooks.update' };
  const after = await tx.webhookEndpoint.update({ where: { id }, data: { ...fields, ...state, ...creator } });
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

/**
 * Queues one more delivery of an existing event to one endpoint; it carries the event's id as webhook-id again. Only
 * an event of a type the endpoint subscribes to (or a webhook.test sent to it), by a caller who may read everything
 * the endpoint subscribes to.
 */
export async function redeliver(tx: Tx, eventId: string, endpointId: string, principal: Principal | null) {
  const endpoint = await findEndpoint(tx, endpointId);
  await subscriptionCreator(tx, principal, endpoint.events);
  const event = await tx.webhookEvent.findUnique({ where: { id: eventId }, select: { id: true, type: true, entityId: true } });
  if (!event) throw new AppError('not_found', `No event with id "${eventId}".`);
  const ownTest = event.type === TEST_EVENT.type && event.entityId === endpoint.id;
  if (!ownTest && !subscribesTo(endpoint.events, event.type)) {
    throw new AppError('event_not_subscribed', `Endpoint "${endpointId}" does not subscribe to ${event.type}; redeliver sends only events of the types it subscribes to.`);
  }
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

type StatsRow = {
  pending: bigint; due: bigint; oldestDue: Date | null; failed24h: bigint; succeeded24h: bigint; skipped24h: bigint; disabledEndpoints: bigint;
};

/** Queue depth and lag across all instances. */
export async function deliveryStats(db: DbClient) {
  const [row] = await db.$queryRaw<StatsRow[]>`
    SELECT
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'pending') AS pending,
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'pending' AND "nextAttemptAt" <= now()) AS due,
      (SELECT min("nextAttemptAt") FROM "WebhookDelivery" WHERE status = 'pending' AND "nextAttemptAt" <= now()) AS "oldestDue",
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'failed' AND "completedAt" > now() - interval '24 hours') AS "failed24h",
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'succeeded' AND "completedAt" > now() - interval '24 hours') AS "succeeded24h",
      (SELECT count(*) FROM "WebhookDelivery" WHERE status = 'skipped' AND "completedAt" > now() - interval '24 hours') AS "skipped24h",
      (SELECT count(*) FROM "WebhookEndpoint" WHERE NOT enabled) AS "disabledEndpoints"`;
  return {
    pending: Number(row.pending),
    due: Number(row.due),
    lagSeconds: row.oldestDue ? Math.max(0, (Date.now() - row.oldestDue.getTime()) / 1000) : 0,
    failedLast24h: Number(row.failed24h),
    succeededLast24h: Number(row.succeeded24h),
    skippedLast24h: Number(row.skipped24h),
    disabledEndpoints: Number(row.disabledEndpoints),
  };
}
