import { createHash } from 'node:crypto';
import type { Tx } from '../db/client.ts';
import { AppError, type ProblemCode } from '../errors.ts';
import { toJsonValue } from '../db/json-value.ts';

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

/**
 * Claims the key inside the write's transaction. A transaction-scoped advisory lock makes a concurrent retry
 * fail fast with 409 instead of running the write twice; a finished earlier call is replayed (or refused with 422
 * when its arguments differed).
 */
export async function claimIdempotencyKey(tx: Tx, claim: IdempotencyClaim): Promise<StoredOutcome | null> {
  const [{ locked }] = await tx.$queryRaw<{ locked: boolean }[]>`
    SELECT pg_try_advisory_xact_lock(hashtextextended(${`${claim.apiKeyId}:${claim.key}`}, 0)) AS locked`;
  if (!locked) throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still running.');
  const existing = await tx.idempotencyRecord.findUnique({ where: { apiKeyId_key: { apiKeyId: claim.apiKeyId, key: claim.key } } });
  if (!existing) return null;
  if (existing.createdAt.getTime() < Date.now() - IDEMPOTENCY_TTL_MS) {
    await tx.idempotencyRecord.delete({ where: { id: existing.id } });
    return null;
  }
  if (existing.requestHash !== claim.requestHash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key.');
  }
  return { status: existing.statusCode ?? 200, body: existing.response } as StoredOutcome;
}

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
