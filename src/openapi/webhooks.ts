import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { EVENT_DEFINITIONS, EVENT_SCHEMAS } from '../events/catalogue.ts';

const DELIVERY_HEADERS = z.object({
  'webhook-id': z.string().describe('The event id: the same on every retry and redelivery, so receivers can drop duplicates.'),
  'webhook-timestamp': z.string().describe('Unix seconds when this attempt was signed; reject deliveries more than 5 minutes away from your clock.'),
  'webhook-signature': z
    .string()
    .describe('Space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the endpoint secret; two during a secret rotation.'),
});

/**
 * The event catalogue as OpenAPI 3.1 `webhooks`: one entry per event type, from the same declarations the service
 * emits and checks its events with (src/events/catalogue.ts).
 */
export function registerWebhooks(registry: OpenAPIRegistry): void {
  for (const definition of EVENT_DEFINITIONS) {
    registry.registerWebhook({
      method: 'post',
      path: definition.type,
      operationId: `event.${definition.type}`,
      summary: definition.type,
      description: `${definition.description}\n\nSigned per Standard Webhooks (docs/webhooks.md). Answer 2xx within 10 s; anything else is retried.`,
      tags: ['events'],
      request: { headers: DELIVERY_HEADERS, body: { required: true, content: { 'application/json': { schema: EVENT_SCHEMAS.get(definition.type)! } } } },
      responses: { 200: { description: 'Any 2xx status acknowledges the delivery; the body is ignored (the first 1 KB is kept with the attempt).' } },
    });
  }
}
