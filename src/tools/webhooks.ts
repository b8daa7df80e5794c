import { answeredAs } from '../schemas/domain-issue.ts';
import { z } from 'zod';
import { isEventPattern } from '../events/catalogue.ts';
import { checkEndpointUrl } from '../events/endpoint-url.ts';
import { WebhookEndpointObject } from '../events/entity-objects.ts';
import { defineTool } from '../registry/define-tool.ts';
import { encodeCursor, pageCursor } from '../schemas/cursor.ts';
import { limit } from '../schemas/numbers.ts';
import { text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { checkPlatformEvents, platformCreator } from '../services/platform-webhooks.ts';
import {
  createEndpoint, deleteEndpoint, deliveryStats, endpointSnapshot, listDeliveries, listEndpoints, redeliver, rotateSecret, sendTestEvent,
  subscriptionCreator, updateEndpoint,
} from '../services/webhooks.ts';

const EndpointId = text({ min: 1, max: 100 }).describe('Endpoint id (we_…).');
const Url = z.string().max(2048).describe('Public https URL.');
const Events = z
  .array(
    z.string().max(100).refine(isEventPattern, { message: 'must be an event type from the catalogue, "<entity>.*" or "*"', params: answeredAs('unknown_event_type') }),
  )
  .min(1)
  .max(100)
  .describe('Event types (OpenAPI webhooks), "order.*" or "*" (400 unknown_event_type otherwise).');
const Description = text({ max: 500 }).nullable();
const AcpPlatformKeyId = text({ min: 1, max: 100 }).describe(
  'ACP platform key id (checkout:agent): the endpoint gets its orders as ACP events.',
);

const Endpoint = WebhookEndpointObject;

/**
 * "At least one field besides id" is published as minProperties: 2 (MCP hosts refuse a top-level anyOf, see
 * settings.update) and checked the same way, so `{ id }` alone is refused by the schema and the server alike (400);
 * `{ id, dryRun }` passes both and is answered 422 nothing_to_change.
 */
const UpdateInput = z
  .strictObject({ id: EndpointId, url: Url.optional(), events: Events.optional(), description: Description.optional(), enabled: z.boolean().optional() })
  .refine((body) => Object.keys(body).length >= 2, 'give at least one of url, events, description, enabled')
  .meta({ minProperties: 2 });
const WithSecret = z.object({
  endpoint: Endpoint,
  secret: z.string().nullable().describe('whsec_… signing secret; null in a replay.'),
  secretNote: z.string().optional(),
});

/** What an Idempotency-Key record keeps of an answer with a secret, and so what a replay says instead of the secret. */
const withoutSecret = ({ endpoint }: z.output<typeof WithSecret>) => ({
  endpoint,
  secret: null,
  secretNote: 'The signing secret was shown only in the first answer to this call and is not kept; get a new one with webhooks.rotate_secret.',
});

const DeliveryStatus = z.enum(['pending', 'succeeded', 'failed', 'skipped']);

const Attempt = z.object({
  at: timestamp(),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int(),
  error: z.string().nullable(),
  responseBody: z.string().nullable().describe('First 1 KB.'),
});

const Delivery = z.object({
  id: z.string(),
  eventId: z.string().describe('= webhook-id.'),
  eventType: z.string(),
  status: DeliveryStatus,
  skippedReason: z.string().nullable(),
  attempts: z.array(Attempt),
  nextAttemptAt: timestamp().nullable(),
  createdAt: timestamp(),
  completedAt: timestamp().nullable(),
});

export const webhookTools = [
  defineTool({
    name: 'webhooks.create',
    title: 'Create a webhook endpoint',
    description:
      'Registers an https URL for signed events (Standard Webhooks). Returns the signing secret once.',
    scope: 'settings:write',
    kind: 'write',
    errors: ['invalid_webhook_url', 'unknown_event_type', 'platform_events_only', 'not_found'],
    audit: { appendOnly: ['webhook_endpoint'] },
    input: z.strictObject({ url: Url, events: Events, description: Description.optional(), acpPlatformKeyId: AcpPlatformKeyId.optional() }),
    output: WithSecret,
    replayResult: withoutSecret,
    async handler({ acpPlatformKeyId, ...input }, ctx) {
      const allowed = await subscriptionCreator(ctx.db, ctx.principal, input.events);
      if (acpPlatformKeyId !== undefined) checkPlatformEvents(input.events);
      const creator = acpPlatformKeyId === undefined ? allowed : await platformCreator(ctx.db, acpPlatformKeyId);
      const url = await checkEndpointUrl(ctx.config, input.url);
      const platform = acpPlatformKeyId === undefined ? null : { format: 'acp' as const, description: input.description ?? `ACP order webhook of key ${acpPlatformKeyId}` };
      const { row, secret } = await createEndpoint(ctx.db, ctx.secrets, { ...input, url, ...platform }, creator);
      ctx.audit({ entityType: 'webhook_endpoint', entityId: row.id, before: null, after: endpointSnapshot(row) });
      return { endpoint: endpointSnapshot(row), secret };
    },
  }),

  defineTool({
    name: 'webhooks.list',
    title: 'List webhook endpoints',
    description: 'Lists webhook endpoints, without secrets.',
    scope: 'settings:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({}),
    output: z.array(Endpoint),
    handler: async (_input, ctx) => (await listEndpoints(ctx.db)).map(endpointSnapshot),
  }),

  defineTool({
    name: 'webhooks.update',
    title: 'Update a webhook endpoint',
    description:
      'Changes url, events, description or enabled (true re-enables an endpoint disabled after failures).',
    scope: 'settings:write',
    kind: 'write',
    idempotent: true,
    errors: ['not_found', 'invalid_webhook_url', 'unknown_event_type', 'nothing_to_change'],
    audit: { appendOnly: ['webhook_endpoint'] },
    input: UpdateInput,
    output: Endpoint,
    async handler({ id, ...patch }, ctx) {
      const url = patch.url === undefined ? undefined : await checkEndpointUrl(ctx.config, patch.url);
      const { before, after } = await updateEndpoint(ctx.db, id, { ...patch, url }, ctx.principal);
      ctx.audit({ entityType: 'webhook_endpoint', entityId: id, before: endpointSnapshot(before), after: endpointSnapshot(after) });
      return endpointSnapshot(after);
    },
  }),

  defineTool({
    name: 'webhooks.delete',
    title: 'Delete a webhook endpoint',
    description: 'Deletes an endpoint and its deliveries.',
    scope: 'settings:write',
    kind: 'write',
    destructive: true,
    requiresConfirm: true,
    errors: ['not_found'],
    audit: { appendOnly: ['webhook_endpoint'] },
    input: z.strictObject({ id: EndpointId }),
    output: z.object({ ok: z.literal(true), id: z.string() }),
    async handler({ id }, ctx) {
      const before = await deleteEndpoint(ctx.db, id);
      ctx.audit({ entityType: 'webhook_endpoint', entityId: id, before: endpointSnapshot(before), after: null });
      return { ok: true as const, id };
    },
  }),

  defineTool({
    name: 'webhooks.rotate_secret',
    title: 'Rotate a webhook signing secret',
    description:
      'Returns a new signing secret; the old one also signs for 24 h.',
    scope: 'settings:write',
    kind: 'write',
    errors: ['not_found'],
    audit: { appendOnly: ['webhook_endpoint'] },
    input: z.strictObject({ id: EndpointId }),
    output: WithSecret,
    replayResult: withoutSecret,
    async handler({ id }, ctx) {
      const { before, after, secret } = await rotateSecret(ctx.db, ctx.secrets, id);
      ctx.audit({ entityType: 'webhook_endpoint', entityId: id, before: endpointSnapshot(before), after: endpointSnapshot(after) });
      return { endpoint: endpointSnapshot(after), secret };
    },
  }),

  defineTool({
    name: 'webhooks.send_test',
    title: 'Send a test event',
    description: 'Queues a webhook.test event for this endpoint only.',
    scope: 'settings:write',
    kind: 'write',
    errors: ['not_found'],
    audit: { appendOnly: ['webhook_test'] },
    input: z.strictObject({ id: EndpointId }),
    output: z.object({ eventId: z.string(), endpointId: z.string() }),
    async handler({ id }, ctx) {
      const { eventId } = await sendTestEvent(ctx.db, id);
      ctx.audit({ entityType: 'webhook_test', entityId: eventId, before: null, after: { endpointId: id, eventId } });
      return { eventId, endpointId: id };
    },
  }),

  defineTool({
    name: 'webhooks.list_deliveries',
    title: 'List an endpoint’s deliveries',
    description: 'Deliveries to one endpoint, newest first, with their attempts.',
    scope: 'settings:read',
    kind: 'read',
    errors: ['not_found', 'invalid_cursor'],
    input: z.strictObject({
      endpointId: EndpointId,
      status: DeliveryStatus.optional(),
      eventId: text({ min: 1, max: 100 }).optional(),
      limit: limit(20),
      cursor: pageCursor('webhooks.list_deliveries').optional(),
    }),
    output: z.object({ deliveries: z.array(Delivery), nextCursor: z.string().nullable() }),
    async handler(filter, ctx) {
      const { deliveries, hasMore } = await listDeliveries(ctx.db, filter);
      const last = deliveries[deliveries.length - 1];
      return {
        deliveries: deliveries.map((d) => ({
          id: d.id,
          eventId: d.eventId,
          eventType: d.event.type,
          status: d.status,
          skippedReason: d.skippedReason,
          attempts: d.attemptLog.map((a) => ({ ...a, at: a.at.toISOString() })),
          nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
          createdAt: d.createdAt.toISOString(),
          completedAt: d.completedAt?.toISOString() ?? null,
        })),
        nextCursor: hasMore && last ? encodeCursor(last.createdAt, last.id) : null,
      };
    },
  }),

  defineTool({
    name: 'webhooks.redeliver',
    title: 'Redeliver an event',
    description: 'Sends a subscribed event to an endpoint again (same webhook-id).',
    scope: 'settings:write',
    kind: 'write',
    errors: ['not_found', 'event_not_subscribed'],
    audit: { appendOnly: ['webhook_delivery'] },
    input: z.strictObject({ eventId: text({ min: 1, max: 100 }), endpointId: EndpointId }),
    output: z.object({ deliveryId: z.string(), eventId: z.string(), endpointId: z.string() }),
    async handler({ eventId, endpointId }, ctx) {
      const { delivery } = await redeliver(ctx.db, eventId, endpointId, ctx.principal);
      ctx.audit({ entityType: 'webhook_delivery', entityId: delivery.id, before: null, after: { eventId, endpointId } });
      return { deliveryId: delivery.id, eventId, endpointId };
    },
  }),

  defineTool({
    name: 'webhooks.stats',
    title: 'Webhook delivery statistics',
    description: 'Delivery queue depth and lag across instances.',
    scope: 'settings:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({}),
    output: z.object({
      pending: z.number().int(),
      due: z.number().int(),
      lagSeconds: z.number().describe('Wait of the oldest due delivery.'),
      failedLast24h: z.number().int(),
      succeededLast24h: z.number().int(),
      skippedLast24h: z.number().int(),
      disabledEndpoints: z.number().int(),
    }),
    handler: (_input, ctx) => deliveryStats(ctx.db),
  }),
];
