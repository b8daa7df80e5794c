// The order webhook of a checkout platform (docs/agentic-checkout.md, "Order webhooks" and "ACP order webhooks"): a
// webhook endpoint of format `ucp` or `acp` whose creator is the platform's own key, that receives the orders of that
// platform's sessions only, through the same outbox and delivery worker as every other endpoint.
import { randomBytes } from 'node:crypto';
import { queryRows, type DbClient, type Tx } from '../db/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { AppError } from '../errors.ts';
import { newSigningSecret } from '../events/signing.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { sealedIn } from '../secrets/stored-secrets.ts';
import type { EndpointCreator } from './webhooks.ts';

/** The order events a platform endpoint subscribes to; the worker sends each as the protocol's order entity. */
export const PLATFORM_ORDER_EVENTS = ['order.created', 'order.status_changed'];

/** The endpoint formats whose deliveries go to a checkout platform (the others are Standard Webhooks). */
export const PLATFORM_FORMATS: readonly string[] = ['ucp', 'acp'];

/**
 * The platform's endpoint for this URL, created on first use; null when the key no longer exists. Looked up on every
 * create and update of a platform with a webhook: a prepared statement, not Prisma's per-call query path.
 */
export async function ensurePlatformEndpoint(tx: Tx, secrets: SecretBox, keyId: string, url: string, platform: string): Promise<string | null> {
  const [existing] = await queryRows<{ id: string }>(tx, Prisma.sql`
    SELECT id FROM "WebhookEndpoint" WHERE format = 'ucp' AND "creatorKeyId" = ${keyId} AND url = ${url} LIMIT 1`, { prepareAs: 'platform_endpoint' });
  if (existing) return existing.id;
  const key = await tx.apiKey.findUnique({ where: { id: keyId }, select: { secretHash: true } });
  if (!key) return null;
  const id = `we_${randomBytes(12).toString('base64url')}`;
  // The Standard Webhooks secret is never used for a `ucp` endpoint (its deliveries are signed with the service's
  // UCP keys) but every endpoint has one, so the column and the secret-store checks stay uniform.
  await tx.webhookEndpoint.create({
    data: {
      id, url, format: 'ucp', events: PLATFORM_ORDER_EVENTS, description: `UCP order webhook of ${platform}`.slice(0, 500),
      secret: secrets.seal(newSigningSecret(), sealedIn.webhookEndpoint(id)), creatorKeyId: keyId, creatorGrantId: null, creatorKeySecretHash: key.secretHash,
    },
  });
  return id;
}

/**
 * The creator of a platform's endpoint: the platform's own key, which must exist, be active and hold checkout:agent.
 * Its deliveries are checked against that key (revoked, expired or rotated: they stop), and carry only the orders of
 * its own sessions.
 */
export async function platformCreator(db: DbClient, keyId: string | null): Promise<EndpointCreator> {
  const key = keyId === null ? null : await db.apiKey.findUnique({ where: { id: keyId }, select: { id: true, secretHash: true, scopes: true, revokedAt: true, expiresAt: true } });
  if (!key || key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= new Date()) || !key.scopes.includes('checkout:agent')) {
    throw new AppError('not_found', `No active API key with id "${keyId ?? ''}" holding checkout:agent: a platform endpoint belongs to the platform's key (keys list).`);
  }
  return { creatorKeyId: key.id, creatorGrantId: null, creatorKeySecretHash: key.secretHash };
}

/** A platform endpoint receives order events only (the protocols have no other events). */
export function checkPlatformEvents(events: readonly string[]): void {
  const allowed = [...PLATFORM_ORDER_EVENTS, 'order.*'];
  const other = events.filter((e) => !allowed.includes(e));
  if (other.length > 0) {
    throw new AppError('platform_events_only', `events: a platform's endpoint receives order events only (${allowed.join(', ')}); not ${other.join(', ')}.`);
  }
}
