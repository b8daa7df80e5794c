import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { Snapshot } from '../domain/revert.ts';
import type { Scope } from '../schemas/scopes.ts';
import { timestamp } from '../schemas/time.ts';
import { ENTITY_OBJECTS, WebhookEndpointObject, type EntityType } from './entity-objects.ts';

/**
 * The event catalogue: every event type the service emits, derived from the audit entries writes record. A write
 * tool emits the events of the entity types it audits (its `audit` declaration), so a new write tool needs no event
 * code of its own; a new audited entity type needs a family here (a registry test keeps the two in step).
 */

/**
 * Every event type belongs to a family, which names the read scopes its payloads expose: the scopes of the tools that
 * read the same data. An endpoint's creator needs them to subscribe to the family, and still needs them when each
 * delivery is sent (docs/webhooks.md, "Who receives what"). Orders and carts carry customers' names, e-mail and
 * postal addresses and phone numbers for every purchase, so their feed needs customer:read besides orders:read.
 */
export const EVENT_FAMILIES = {
  catalog: { reads: ['catalog:read'], holds: 'Products and categories' },
  content: { reads: ['pages:read'], holds: 'Pages (drafts included) and service offerings' },
  orders: { reads: ['orders:read', 'customer:read'], holds: 'Orders and carts, with customers’ names, e-mail and postal addresses and phone numbers' },
  discounts: { reads: ['discounts:read'], holds: 'Discount codes' },
  settings: { reads: ['settings:read'], holds: 'Shop settings, shipping rates and webhook endpoints' },
  features: { reads: ['features:read'], holds: 'Feature flags' },
  audit: { reads: ['audit:read'], holds: 'Reverts, with the reverted entity of any kind (as audit.list shows it)' },
} as const satisfies Record<string, { reads: readonly Scope[]; holds: string }>;

export type EventFamily = keyof typeof EVENT_FAMILIES;

/** What a predicate sees of one audited change. */
type ChangeFacts = { before: Snapshot | null; after: Snapshot | null; changed: readonly string[] };

type EventDefinition = {
  type: string;
  entityType: string;
  family: EventFamily;
  description: string;
  when: (c: ChangeFacts) => boolean;
  /** The `data.object` schema. */
  object: z.ZodType;
};

type Lifecycle = 'created' | 'updated' | 'deleted';

const isDeleted = (s: Snapshot | null) => s === null || (s.deletedAt !== undefined && s.deletedAt !== null);

/**
 * created: the entity did not exist before. deleted: it is gone, or soft-deleted by this change. updated: any other
 * change of at least one field; a family without `created` reports a first write as `updated` (settings, flags).
 * A write that changes nothing emits nothing.
 */
const LIFECYCLE: Record<Lifecycle, (has: ReadonlySet<Lifecycle>) => (c: ChangeFacts) => boolean> = {
  created: () => (c) => c.before === null && c.after !== null,
  deleted: () => (c) => c.after === null || (isDeleted(c.after) && !isDeleted(c.before)),
  updated: (has) => (c) =>
    c.after !== null && !(isDeleted(c.after) && !isDeleted(c.before)) && (c.before === null ? !has.has('created') : c.changed.length > 0),
};

const fieldChanged = (field: string) => (c: ChangeFacts) => c.before !== null && c.after !== null && c.changed.includes(field);

function entityEvents(
  entityType: EntityType,
  family: EventFamily,
  lifecycle: Partial<Record<Lifecycle, string>>,
  extra: Record<string, { description: string; when: (c: ChangeFacts) => boolean }> = {},
): EventDefinition[] {
  const has = new Set(Object.keys(lifecycle) as Lifecycle[]);
  const object = ENTITY_OBJECTS[entityType];
  return [
    ...[...has].map((kind) => ({ type: `${entityType}.${kind}`, entityType, family, description: lifecycle[kind]!, when: LIFECYCLE[kind](has), object })),
    ...Object.entries(extra).map(([name, e]) => ({ type: `${entityType}.${name}`, entityType, family, object, ...e })),
  ];
}

const ENTITY_EVENTS: readonly EventDefinition[] = [
  ...entityEvents(
    'product', 'catalog',
    { created: 'A product was created.', updated: 'Fields of a product changed.', deleted: 'A product was soft-deleted (removed from the catalog).' },
    { stock_changed: { description: 'A product’s stock changed (also sent with product.updated).', when: fieldChanged('stock') } },
  ),
  ...entityEvents(
    'variant', 'catalog',
    { created: 'A product variant was created.', updated: 'Fields of a variant changed.', deleted: 'A variant was soft-deleted.' },
    { stock_changed: { description: 'A variant’s stock changed (also sent with variant.updated).', when: fieldChanged('stock') } },
  ),
  ...entityEvents('category', 'catalog', { created: 'A category was created.', updated: 'Fields of a category changed.', deleted: 'A category was deleted.' }),
  ...entityEvents(
    'page', 'content',
    { created: 'A page was created.', updated: 'Fields of a page changed.', deleted: 'A page was deleted.' },
    {
      published: {
        description: 'A page became published: created as published, or moved from draft to published.',
        when: (c) => c.after?.status === 'published' && c.before?.status !== 'published',
      },
    },
  ),
  ...entityEvents('service', 'content', { created: 'A service offering was created.', updated: 'Fields of a service offering changed.' }),
  ...entityEvents(
    'order', 'orders',
    { created: 'An order was placed (checkout).' },
    { status_changed: { description: 'An order moved to another status; previousValues.status is where it came from.', when: fieldChanged('status') } },
  ),
  ...entityEvents('cart', 'orders', { created: 'A cart was created.', updated: 'A cart’s lines or state changed (including checkout).' }),
  ...entityEvents('discount', 'discounts', { created: 'A discount code was created.', updated: 'A discount code was switched on or off.' }),
  ...entityEvents('settings', 'settings', { updated: 'Shop settings changed.' }),
  ...entityEvents(
    'shipping_rate', 'settings',
    { created: 'A shipping rate was created.', updated: 'Fields of a shipping rate changed.', deleted: 'A shipping rate was deleted.' },
  ),
  ...entityEvents('feature', 'features', { updated: 'A feature flag was created or changed.' }),
  ...entityEvents(
    'webhook_endpoint', 'settings',
    { created: 'A webhook endpoint was created.', updated: 'A webhook endpoint’s URL, events, description or state changed.', deleted: 'A webhook endpoint was deleted.' },
    {
      disabled: {
        description: 'A webhook endpoint was disabled: by webhooks.update, or by the service after 24 h of failed deliveries (disabledReason says which).',
        when: (c) => c.before?.enabled === true && c.after?.enabled === false,
      },
    },
  ),
];

const REVERTED: EventDefinition = {
  type: 'audit.reverted',
  entityType: 'audit',
  family: 'audit',
  description: 'audit.revert restored an entity to the state an audit entry recorded before its change. Sent with the entity’s own event.',
  when: () => true,
  object: z.record(z.string(), z.unknown()).nullable().describe('The entity after the revert, as its own events show it; null when the revert removed it.'),
};

/** Sent only by webhooks.send_test, only to the endpoint it names. */
export const TEST_EVENT: EventDefinition = {
  type: 'webhook.test',
  entityType: 'webhook_test',
  family: 'settings',
  description: 'A test event sent by webhooks.send_test to one endpoint, to check its URL and signature verification.',
  when: () => false,
  object: WebhookEndpointObject,
};

export const EVENT_DEFINITIONS: readonly EventDefinition[] = [...ENTITY_EVENTS, REVERTED, TEST_EVENT];

/**
 * Audit entity types that emit no event of their own: a redelivery re-sends an existing event; a buyer's saved address
 * (the address book, docs/agentic-checkout.md) is customers' data no event family carries.
 */
export const SILENT_ENTITY_TYPES: ReadonlySet<string> = new Set(['webhook_delivery', 'checkout_session', 'buyer_address']);

const byEntity = new Map<string, EventDefinition[]>();
for (const d of ENTITY_EVENTS) byEntity.set(d.entityType, [...(byEntity.get(d.entityType) ?? []), d]);

/** The event types a write tool can emit, from the entity types it audits. */
export function eventTypesOf(tool: { name: string; auditedTypes: ReadonlySet<string> }): string[] {
  const types = [...tool.auditedTypes].flatMap((t) => (t === TEST_EVENT.entityType ? [TEST_EVENT.type] : (byEntity.get(t) ?? []).map((d) => d.type)));
  // audit.revert is the one tool that records reverts (entries with revertOf).
  return tool.name === 'audit.revert' ? [...types, REVERTED.type] : types;
}

/** Whether an event type matches a subscription pattern: the type itself, "<entity>.*" or "*". */
const matches = (pattern: string, type: string) => pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1)));

/** What an endpoint may subscribe to: an event type, "<entity>.*" for all of an entity's events, or "*". */
export function isEventPattern(pattern: string): boolean {
  if (pattern === '*' || pattern.endsWith('.*')) return EVENT_DEFINITIONS.some((d) => matches(pattern, d.type));
  return EVENT_DEFINITIONS.some((d) => d.type === pattern && d !== TEST_EVENT);
}

/** Whether an endpoint subscribing to `patterns` receives events of `type` (the outbox's SUBSCRIBED, in JS). */
export const subscribesTo = (patterns: readonly string[], type: string) => patterns.some((p) => matches(p, type));

const readsOf = (definitions: readonly EventDefinition[]): Scope[] =>
  [...new Set(definitions.flatMap((d) => EVENT_FAMILIES[d.family].reads))].sort();

/** The read scopes a subscription reaches: those of every family one of its patterns matches ("*": all of them). */
export const readScopesOfSubscription = (patterns: readonly string[]): Scope[] =>
  readsOf(EVENT_DEFINITIONS.filter((d) => subscribesTo(patterns, d.type)));

const READS_BY_TYPE: ReadonlyMap<string, readonly Scope[]> = new Map(EVENT_DEFINITIONS.map((d) => [d.type, EVENT_FAMILIES[d.family].reads]));

/** The read scopes a delivery of this event type needs its endpoint's creator to hold; an unknown type needs all. */
export const readScopesOfType = (type: string): readonly Scope[] => READS_BY_TYPE.get(type) ?? readsOf(EVENT_DEFINITIONS);

/** Entity types some tool audits that have neither events nor a place in SILENT_ENTITY_TYPES (must be none). */
export function entityTypesWithoutEvents(auditedTypes: Iterable<string>): string[] {
  return [...new Set(auditedTypes)].filter((t) => !byEntity.has(t) && !SILENT_ENTITY_TYPES.has(t) && t !== TEST_EVENT.entityType);
}

/** What an event's `data` holds besides the entity coordinates (those and `sequence` are added when it is sent). */
export type EventData = { object: unknown; changedFields: string[]; previousValues: Record<string, unknown>; revertedEntryId?: string };

/** `step`: see AuditedChange. */
export type DerivedEvent = { type: string; entityType: string; entityId: string; data: EventData; step?: number };

/** Fields whose value differs between two snapshots; `updatedAt` alone is not a change. */
export function changedFields(before: Snapshot | null, after: Snapshot | null): string[] {
  if (before === null || after === null) return [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  keys.delete('updatedAt');
  return [...keys].filter((k) => !isDeepStrictEqual(before[k] ?? null, after[k] ?? null));
}

/**
 * `step` (0 when absent): a change recorded as a later write of its entity, committed in the same transaction (an
 * order placed, then paid with the payment taken before it): its events take the entity's next sequence number
 * after those of the changes before it (src/events/outbox.ts).
 */
export type AuditedChange = { entityType: string; entityId: string; before: unknown; after: unknown; revertOf?: string; step?: number };

const asObject = (v: unknown): Snapshot | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Snapshot) : null);

/** The events one write's audited changes produce, in the order of the changes. */
export function deriveEvents(changes: readonly AuditedChange[]): DerivedEvent[] {
  return changes.flatMap((change) => {
    const before = asObject(change.before);
    const after = asObject(change.after);
    const changed = changedFields(before, after);
    const facts = { before, after, changed };
    const data: EventData = {
      object: after ?? before,
      changedFields: changed,
      previousValues: Object.fromEntries(changed.map((k) => [k, before?.[k] ?? null])),
    };
    const coordinates = { entityType: change.entityType, entityId: change.entityId, ...(change.step ? { step: change.step } : {}) };
    const own = (byEntity.get(change.entityType) ?? []).filter((d) => d.when(facts)).map((d) => ({ type: d.type, ...coordinates, data }));
    if (change.revertOf === undefined) return own;
    return [...own, { type: REVERTED.type, ...coordinates, data: { ...data, object: after, revertedEntryId: change.revertOf } }];
  });
}

const Coordinates = {
  entityType: z.string().describe('The entity the event is about.'),
  entityId: z.string(),
  sequence: z.number().int().min(1).describe('Increases by one with every committed write of this entity that emits events; drop a payload whose sequence is not above the last one you applied.'),
};

/** The payload schema of one event type: `{ id, type, createdAt, data }`. */
export function eventSchema(definition: EventDefinition) {
  const data = z.object({
    ...Coordinates,
    object: definition.object,
    changedFields: z.array(z.string()).describe('Fields this change modified (empty on creation and deletion).'),
    previousValues: z.record(z.string(), z.unknown()).describe('The changed fields’ values before the change.'),
    ...(definition === REVERTED ? { revertedEntryId: z.string().describe('The audit entry whose change was undone.') } : {}),
  });
  return z
    .object({
      id: z.string().describe('The event id; also the webhook-id header, the same on every retry.'),
      type: z.literal(definition.type),
      createdAt: timestamp().describe('When the transaction of the write that caused the event began.'),
      data,
    })
    .describe(definition.description);
}

export const EVENT_SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map(EVENT_DEFINITIONS.map((d) => [d.type, eventSchema(d)]));
