// The order webhook of a checkout platform (docs/agentic-checkout.md, "Order webhooks"): a webhook endpoint of format
// `ucp`, created by the platform's own key, that receives the orders of that platform's sessions only, through the
// same outbox and delivery worker as every other endpoint.
import { randomBytes } from 'node:crypto';
import type { Tx } from '../db/client.ts';
import { newSigningSecret } from '../events/signing.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { sealedIn } from '../secrets/stored-secrets.ts';

/** The order events a platform endpoint subscribes to; the worker sends each as the protocol's order entity. */
export const PLATFORM_ORDER_EVENTS = ['order.created', 'order.status_changed'];

/** The platform's endpoint for this URL, created on first use; null when the key no longer exists. */
export async function ensurePlatformEndpoint(tx: Tx, secrets: SecretBox, keyId: string, url: string, platform: string): Promise<string | null> {
  const existing = await tx.webhookEndpoint.findFirst({ where: { format: 'ucp', creatorKeyId: keyId, url }, select: { id: true } });
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
