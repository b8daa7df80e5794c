import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks signatures (docs/webhooks.md): the secret is "whsec_" + base64 of random bytes; the signature is
// "v1," + base64(HMAC-SHA256(secret bytes, "<webhook-id>.<webhook-timestamp>.<body>")).

const PREFIX = 'whsec_';

/** 32 random bytes (the specification allows 24 to 64). */
export const newSigningSecret = () => `${PREFIX}${randomBytes(32).toString('base64')}`;

function signature(secret: string, content: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

/**
 * The three headers of one delivery attempt. Every secret given signs (during a rotation: the new one, then the old
 * one), space-separated in webhook-signature, so a receiver holding either verifies.
 */
export function webhookHeaders(id: string, sentAt: Date, body: string, secrets: readonly string[]): Record<string, string> {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const content = `${id}.${timestamp}.${body}`;
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((s) => signature(s, content)).join(' '),
  };
}
