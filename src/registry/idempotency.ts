import { createHash } from 'node:crypto';
import { queryRows, takeDeferredWrites, type Db, type Opening, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { AppError, hasSqlState, type ProblemCode } from '../errors.ts';
import { toJsonValue } from '../db/json-value.ts';
import { outboxStatements, type OutboxRow } from '../events/outbox.ts';

/** How long a key is remembered (documented in docs/agent-safety.md). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyClaim = { apiKeyId: string; key: string; tool: string; requestHash: string };
export type StoredOutcome = { status: 200; body: { ok: true; result: unknown } } | { status: number; body: { code: ProblemCode; detail: string } };

const REPLAYED = { 'Idempotent-Replayed': 'true' };
/**
 * The header's published rule (OpenAPI `pattern` of the IdempotencyKey parameter), checked on the raw value: 1 to
 * 255 visible ASCII characters, but not the empty sf-string `""`.
 */
export const IDEMPOTENCY_KEY_PATTERN = /^(?!""$)[!-~]{1,255}$/;

/**
 * Parses the Idempotency-Key header (draft-ietf-httpapi-idempotency-key-header-07): an sf-string `"…"`, or the
 * bare token most clients send; both name the same key. Undefined when absent.
 */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new AppError('invalid_idempotency_key', 'Send exactly one Idempotency-Key header.');
  const raw = value.trim();
  if (!IDEMPOTENCY_KEY_PATTERN.test(raw)) throw new AppError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
  // Within the pattern a quoted value has no spaces, so its unquoted content is visible ASCII too.
  const quoted = /^"((?:[!#-[\]-~]|\\["\\])+)"$/.exec(raw);
  return quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : raw;
}

/** Fingerprint of the call: the same key may only be replayed for the same tool and the same arguments. */
export function requestHash(tool: string, body: unknown): string {
  return createHash('sha256').update(tool).update('\0').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

type RecordRow = { requestHash: string; statusCode: number | null; response: unknown; createdAt: Date };

/** A stored outcome for the claim's key, or null when there is none or it has expired; 422 when the arguments differ. */
function outcomeOf(row: RecordRow | undefined, claim: IdempotencyClaim): StoredOutcome | null {
  if (!row || row.createdAt.getTime() < Date.now() - IDEMPOTENCY_TTL_MS) return null;
  if (row.requestHash !== claim.requestHash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key.');
  }
  return { status: row.statusCode ?? 200, body: row.response } as StoredOutcome;
}

/**
 * The outcome of an earlier call with this key, read without a transaction: a record is only ever written with its
 * final outcome, in the transaction of the call, so one that is visible is final. Read when a write's claim found
 * the key stored (invokeTool's second run): a first call does not look, its claim does.
 */
export async function earlierOutcome(db: Db, claim: IdempotencyClaim): Promise<StoredOutcome | null> {
  const [row] = await queryRows<RecordRow>(db, Prisma.sql`
    SELECT "requestHash", "statusCode", response, "createdAt" FROM "IdempotencyRecord" WHERE "apiKeyId" = ${claim.apiKeyId} AND key = ${claim.key}`,
  { prepareAs: 'idempotency_find' });
  return outcomeOf(row, claim);
}

/**
 * Claims the key inside the write's transaction: a transaction-scoped advisory lock makes a concurrent retry fail
 * fast with 409 instead of running the write twice. Once it holds the lock it looks for a live record of the key: a
 * call with this key that committed before fails the claim (SQLSTATE 40001; every statement of the handler behind it
 * fails with it, so nothing the handler does in the database runs), or at the latest this one's own outcome fails to
 * store (recordWrite's statement); either way the call runs again, reads the record (earlierOutcome) and replays it.
 * A handler therefore calls nothing outside the database before its first statement that it would not call twice
 * (its payments and other effects come after the commit, or after a statement of its own).
 * The statement is the transaction's first, pipelined with its BEGIN (inTransaction's `opening`): nothing waits for
 * its answer, so a key held by a running call raises (agent_api_claim_key, SQLSTATE AK409: keyInUse) and the
 * transaction fails with it.
 */
export function claimStatement(claim: IdempotencyClaim): Opening {
  const liveSince = new Date(Date.now() - IDEMPOTENCY_TTL_MS);
  return {
    sql: Prisma.sql`SELECT agent_api_claim_key(${`${claim.apiKeyId}:${claim.key}`}, ${claim.apiKeyId}, ${claim.key}, ${liveSince}) AS claimed`,
    prepareAs: 'idempotency_claim',
  };
}

/** The claim found its key held by a call still running: 409. */
export function keyInUse(err: unknown): AppError | null {
  return hasSqlState(err, 'AK409') ? new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still running.') : null;
}

export type AuditRow = {
  entityType: string; entityId: string; before: unknown; after: unknown; meta?: unknown; revertOf?: string;
};

/**
 * JSON text as plainJson() would give it (bigints as numbers, dates as ISO strings through their toJSON), without
 * copying the snapshot first: audit snapshots are mostly plain already, and the copy showed in write profiles.
 */
const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v, (_key, x: unknown) => (typeof x === 'bigint' ? Number(x) : x)));

/**
 * Everything a write leaves besides its own rows, in ONE statement at the end of its transaction: the audit entries,
 * the outgoing events (the outbox, src/events/outbox.ts) and, with an Idempotency-Key, the outcome stored for
 * replays; the handler's deferred last write (deferWrite, src/db/client.ts) joins it too. Each part is a CTE of that statement, so the whole costs one round trip and commits or rolls back with
 * the write: no event for a rolled-back write, no committed write without its events.
 */
export async function recordWrite(
  tx: Tx,
  write: {
    apiKeyId: string | null; grantId: string | null; clientAddress: string; tool: string;
    entries: readonly AuditRow[]; events: readonly OutboxRow[]; idempotency: IdempotencyClaim | null; outcome: StoredOutcome;
  },
): Promise<void> {
  const at = new Date();
  const { entries, events, idempotency: idem } = write;
  const deferred = takeDeferredWrites();
  const parts: Array<[name: string, sql: Prisma.Sql]> = deferred.map((d) => [d.name, d.ctes]);
  if (entries.length > 0) {
    parts.push(['audit', Prisma.sql`audit AS (
      INSERT INTO "AuditEntry" (id, at, "apiKeyId", "grantId", "clientAddress", tool, "entityType", "entityId", before, after, meta, "revertOf")
      SELECT e.id, ${at}, ${write.apiKeyId}, ${write.grantId}, ${write.clientAddress}, ${write.tool}, e."entityType", e."entityId", e.before, e.after, e.meta, e."revertOf"
      FROM unnest(${entries.map(() => newId())}::text[], ${entries.map((e) => e.entityType)}::text[], ${entries.map((e) => e.entityId)}::text[],
                  ${entries.map((e) => jsonOrNull(e.before))}::jsonb[], ${entries.map((e) => jsonOrNull(e.after))}::jsonb[],
                  ${entries.map((e) => jsonOrNull(e.meta))}::jsonb[], ${entries.map((e) => e.revertOf ?? null)}::text[])
           AS e(id, "entityType", "entityId", before, after, meta, "revertOf"))`]);
  }
  if (events.length > 0) parts.push(['events', outboxStatements(events)]);
  if (idem) {
    parts.push(['idempotency', Prisma.sql`stored AS (
      INSERT INTO "IdempotencyRecord" (id, "apiKeyId", key, tool, "requestHash", "statusCode", response, "createdAt", "completedAt")
      VALUES (${newId()}, ${idem.apiKeyId}, ${idem.key}, ${idem.tool}, ${idem.requestHash}, ${write.outcome.status},
              ${JSON.stringify(write.outcome.body)}::jsonb, ${at}, ${at})
      ON CONFLICT ("apiKeyId", key) DO UPDATE
        SET id = EXCLUDED.id, tool = EXCLUDED.tool, "requestHash" = EXCLUDED."requestHash", "statusCode" = EXCLUDED."statusCode",
            response = EXCLUDED.response, "createdAt" = EXCLUDED."createdAt", "completedAt" = EXCLUDED."completedAt"
        -- An expired record is replaced (earlierOutcome ignored it); a live one means another call won the race.
        WHERE "IdempotencyRecord"."createdAt" < ${new Date(at.getTime() - IDEMPOTENCY_TTL_MS)}
      RETURNING "IdempotencyRecord".id)`]);
  }
  if (parts.length === 0) return;
  // COMMIT follows this statement unawaited (queryRows' `commits`), so the race is decided in it: a key another call
  // stored meanwhile fails it with 40001, the transaction rolls back, and the call runs again, which then replays.
  const check = idem ? Prisma.sql`SELECT agent_api_expect(EXISTS (SELECT FROM stored), 'the Idempotency-Key was stored by a concurrent call')` : Prisma.sql`SELECT 1`;
  const sql = Prisma.sql`WITH ${Prisma.join(parts.map(([, cte]) => cte), ', ')} ${check}`;
  // One fixed text per combination of parts, so each is prepared once per connection (its plan is value-independent).
  const name = ['record', ...parts.map(([part]) => part)].join('_');
  await queryRows(tx, sql, { prepareAs: deferred.every((d) => d.prepared !== false) ? name : undefined, commits: true });
}

/** The outcome of a call that failed after it began executing, stored outside its (rolled back) transaction. */
export async function recordOutcome(db: Pick<Tx, 'idempotencyRecord'>, claim: IdempotencyClaim, outcome: StoredOutcome): Promise<void> {
  await db.idempotencyRecord.upsert({
    where: { apiKeyId_key: { apiKeyId: claim.apiKeyId, key: claim.key } },
    create: { ...claim, statusCode: outcome.status, response: toJsonValue(outcome.body), completedAt: new Date() },
    update: {},
  });
}

/** Turns a stored outcome back into what the first call produced, marked as a replay. */
export function replay(outcome: StoredOutcome): { ok: true; result: unknown; replayed: true } {
  if (outcome.status === 200) return { ok: true, result: (outcome.body as { result: unknown }).result, replayed: true };
  const { code, detail } = outcome.body as { code: ProblemCode; detail: string };
  throw new AppError(code, detail, REPLAYED);
}
