import { randomBytes } from 'node:crypto';
import type { Tx } from '../db/client.ts';
import { deriveEvents, EVENT_SCHEMAS, type AuditedChange, type DerivedEvent } from './catalogue.ts';

/** Event ids are also the webhook-id header: unique, opaque, the same on every retry. */
export const newEventId = () => `evt_${randomBytes(16).toString('base64url')}`;

export type OutboxOptions = {
  /** Check every event against its published schema and throw on a mismatch (the test suite's strict contracts). */
  validate?: boolean;
};

/**
 * The transactional outbox: writes the events of a write's audited changes in the write's own transaction, so an
 * event exists exactly when its change committed. One statement: it takes each entity's next sequence number,
 * inserts the events, and fans each out to the enabled endpoints subscribed to its type as pending deliveries.
 */
export async function recordEvents(tx: Tx, changes: readonly AuditedChange[], options: OutboxOptions = {}): Promise<void> {
  const events = deriveEvents(changes);
  if (events.length === 0) return;
  if (options.validate) for (const e of events) validateEvent(e);
  await insertEvents(tx, events.map((e) => ({ ...e, id: newEventId() })));
}

type OutboxRow = DerivedEvent & { id: string };

/** Also used for events that go to one endpoint only (webhooks.send_test): then `onlyEndpointId` names it. */
export async function insertEvents(tx: Tx, rows: readonly OutboxRow[], onlyEndpointId: string | null = null): Promise<void> {
  const column = <T>(pick: (r: OutboxRow) => T) => rows.map(pick);
  await tx.$executeRaw`
    WITH input AS (
      SELECT * FROM unnest(${column((r) => r.id)}::text[], ${column((r) => r.type)}::text[], ${column((r) => r.entityType)}::text[],
                           ${column((r) => r.entityId)}::text[], ${column((r) => JSON.stringify(r.data))}::text[])
        AS i(id, type, "entityType", "entityId", data)
    ), seq AS (
      INSERT INTO "EntityEventSequence" AS s (entity, last)
      SELECT DISTINCT "entityType" || ':' || "entityId", 1 FROM input
      ON CONFLICT (entity) DO UPDATE SET last = s.last + 1
      RETURNING entity, last
    ), ev AS (
      INSERT INTO "WebhookEvent" (id, type, "entityType", "entityId", sequence, data)
      SELECT i.id, i.type, i."entityType", i."entityId", seq.last, i.data::json
      FROM input i JOIN seq ON seq.entity = i."entityType" || ':' || i."entityId"
      RETURNING id, type
    )
    INSERT INTO "WebhookDelivery" (id, "eventId", "endpointId")
    SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), ev.id, p.id
    FROM ev JOIN "WebhookEndpoint" p
      ON ${onlyEndpointId}::text IS NOT NULL AND p.id = ${onlyEndpointId}::text
      OR ${onlyEndpointId}::text IS NULL AND p.enabled
         AND (ev.type = ANY (p.events) OR split_part(ev.type, '.', 1) || '.*' = ANY (p.events) OR '*' = ANY (p.events))`;
}

function validateEvent(e: DerivedEvent): void {
  const schema = EVENT_SCHEMAS.get(e.type);
  const sample = { id: 'evt_check', type: e.type, createdAt: new Date().toISOString(), data: { entityType: e.entityType, entityId: e.entityId, sequence: 1, ...e.data } };
  const parsed = schema?.safeParse(sample);
  if (!parsed?.success) throw new Error(`Event ${e.type} does not match its published schema: ${parsed?.error.message ?? 'no schema'}`);
}
