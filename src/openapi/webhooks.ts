import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { EVENT_DEFINITIONS, EVENT_FAMILIES, EVENT_SCHEMAS } from '../events/catalogue.ts';
import { EVENTS_TAG } from './tags.ts';

const DELIVERY_HEADERS = z.object({
  'webhook-id': z.string().describe('The event id: the same on every retry and redelivery, so receivers can drop duplicates.'),
  'webhook-timestamp': z.string().describe('Unix seconds when this attempt was signed; reject deliveries more than 5 minutes away from your clock.'),
  'webhook-signature': z
    .string()
    .describe('Space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the endpoint secret; two during a secret rotation.'),
});

/** The receiver's side of the signature, as a security scheme so each event operation says how it is authenticated. */
export const WEBHOOK_SIGNATURE_SCHEME = 'WebhookSignature';

/**
 * The event catalogue as OpenAPI 3.1 `webhooks`: one entry per event type, from the same declarations the service
 * emits and checks its events with (src/events/catalogue.ts), each with its family and the read scopes an endpoint's
 * creator needs to receive it (`x-event-family`, `x-required-scopes`).
 */
export function registerWebhooks(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', WEBHOOK_SIGNATURE_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description: 'Standard Webhooks signature: verify it with the endpoint secret (whsec_…) before trusting the body (docs/webhooks.md).',
  });
  for (const definition of EVENT_DEFINITIONS) {
    const { reads, holds } = EVENT_FAMILIES[definition.family];
    registry.registerWebhook({
      method: 'post',
      path: definition.type,
      operationId: `event.${definition.type}`,
      summary: definition.type,
      description:
        `${definition.description}\n\nFamily \`${definition.family}\` (${holds}): sent only while the endpoint's creator holds ${reads.map((r) => `\`${r}\``).join(' and ')}; ` +
        'otherwise the delivery is recorded as skipped (docs/webhooks.md, "Who receives what").\n\n' +
        'Signed per Standard Webhooks (docs/webhooks.md). Answer 2xx within 10 s; anything else is retried.',
      'x-event-family': definition.family,
      'x-required-scopes': [...reads],
      tags: [EVENTS_TAG.name],
      security: [{ [WEBHOOK_SIGNATURE_SCHEME]: [] }],
      request: { headers: DELIVERY_HEADERS, body: { required: true, content: { 'application/json': { schema: EVENT_SCHEMAS.get(definition.type)! } } } },
      responses: { 200: { description: 'Any 2xx status acknowledges the delivery; the body is ignored (the first 1 KB is kept with the attempt).' } },
    });
  }
}
