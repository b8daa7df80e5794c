import { queryRows, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { deriveEvents, EVENT_SCHEMAS, type AuditedChange, type DerivedEvent } from './catalogue.ts';

/**
 * Event ids are also the webhook-id header: unique, opaque, the same on every retry. Time-ordered (src/db/ids.ts),
 * so each new event lands at the right edge of the events' primary key: random ids made every insert dirty a
 * random index page, and the full-page images written for those after each checkpoint grew with the table
 * (docs/performance.md, "Writes", item 18).
 */
export const newEventId = () => `evt_${newId()}`;

export type OutboxOptions = {
  /** Check every event against its published schema and throw on a mismatch (the test suite's strict contracts). */
  validate?: boolean;
};

/**
 * The transactional outbox: the events of a write's audited changes are written in the write's own transaction, so
 * an event exists exactly when its change committed. A tool call's events join the one statement that also records
 * its audit entries and stored outcome (recordWrite, src/registry/idempotency.ts: no round trip of their own);
 * writes outside the tool path (the delivery worker) insert them with recordEvents.
 */
export async function recordEvents(tx: Tx, changes: readonly AuditedChange[], options: OutboxOptions = {}): Promise<void> {
  const events = eventsOf(changes, options);
  if (events.length > 0) await insertEvents(tx, events);
}

export type OutboxRow = DerivedEvent & { id: string };

/** The events of a write's audited changes, each with its id; checked against their schemas when asked. */
export function eventsOf(changes: readonly AuditedChange[], options: OutboxOptions = {}): OutboxRow[] {
  const events = deriveEvents(changes);
  if (options.validate) for (const e of events) validateEvent(e);
  return events.map((e) => ({ ...e, id: newEventId() }));
}

/** Also used for events that go to one endpoint only (webhooks.send_test): then `onlyEndpointId` names it. */
export async function insertEvents(tx: Tx, rows: readonly OutboxRow[], onlyEndpointId: string | null = null): Promise<void> {
  await queryRows(tx, Prisma.sql`WITH ${outboxStatements(rows, onlyEndpointId)} SELECT 1`);
}

/**
 * The outbox as common table expressions, for a WITH clause (PostgreSQL runs every data-modifying CTE of a
 * statement, whether or not the rest reads it): each entity's next sequence number is taken, the events are
 * inserted, and each is fanned out to the enabled endpoints subscribed to its type as pending deliveries.
 */
/**
 * The endpoints an event goes to. Written into the SQL rather than chosen by a parameter (`$n IS NULL OR …`): a
 * custom plan folds such a choice away and looks cheaper, so the write's prepared statement was planned on every
 * call (test/perf-guards/prepared-plans.test.ts).
 */
const SUBSCRIBED = Prisma.sql`p.enabled AND (ev.type = ANY (p.events) OR split_part(ev.type, '.', 1) || '.*' = ANY (p.events) OR '*' = ANY (p.events))`;

export function outboxStatements(rows: readonly OutboxRow[], onlyEndpointId: string | null = null): Prisma.Sql {
  const column = <T>(pick: (r: OutboxRow) => T) => rows.map(pick);
  return Prisma.sql`
    event_input AS (
      SELECT * FROM unnest(${column((r) => r.id)}::text[], ${column((r) => r.type)}::text[], ${column((r) => r.entityType)}::text[],
                           ${column((r) => r.entityId)}::text[], ${column((r) => JSON.stringify(r.data))}::text[], ${column((r) => r.step ?? 0)}::int[])
        AS i(id, type, "entityType", "entityId", data, step)
    ), event_writes AS (
      -- How many writes of each entity this statement commits: one, or more when a change is a later step.
      SELECT "entityType" || ':' || "entityId" AS entity, max(step) + 1 AS writes FROM event_input GROUP BY 1
    ), event_sequence AS (
      INSERT INTO "EntityEventSequence" AS s (entity, last)
      SELECT entity, writes FROM event_writes
      ON CONFLICT (entity) DO UPDATE SET last = s.last + EXCLUDED.last
      RETURNING entity, last
    ), event AS (
      INSERT INTO "WebhookEvent" (id, type, "entityType", "entityId", sequence, data)
      SELECT i.id, i.type, i."entityType", i."entityId", seq.last - w.writes + 1 + i.step, i.data::json
      FROM event_input i JOIN event_sequence seq ON seq.entity = i."entityType" || ':' || i."entityId" JOIN event_writes w ON w.entity = seq.entity
      RETURNING id, type
    ), event_delivery AS (
      INSERT INTO "WebhookDelivery" (id, "eventId", "endpointId")
      SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), ev.id, p.id
      FROM event ev JOIN "WebhookEndpoint" p ON ${onlyEndpointId === null ? SUBSCRIBED : Prisma.sql`p.id = ${onlyEndpointId}`}
    )`;
}

function validateEvent(e: DerivedEvent): void {
  const schema = EVENT_SCHEMAS.get(e.type);
  const sample = { id: 'evt_check', type: e.type, createdAt: new Date().toISOString(), data: { entityType: e.entityType, entityId: e.entityId, sequence: 1, ...e.data } };
  const parsed = schema?.safeParse(sample);
  if (!parsed?.success) throw new Error(`Event ${e.type} does not match its published schema: ${parsed?.error.message ?? 'no schema'}`);
}
