import { sqlOf, sqlTransaction, type SqlSource } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { endGrants } from '../oauth/grant-admin.ts';
import { SCOPES, isScope, type Scope } from '../registry/scopes.ts';
import { generateKey, generateKeyId } from './key-format.ts';

// Plain SQL on pg (src/db/sql.ts): the operator CLI runs these without loading Prisma.

export type IssuedKey = { id: string; name: string; scopes: Scope[]; key: string };

type ApiKeyRow = { id: string; name: string; scopes: string[]; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null; expiresAt: Date | null };

/** Parses `all` or a comma-separated scope list; unknown scopes are an error, never silently dropped. */
export function parseScopes(csv: string): Scope[] {
  if (csv.trim() === 'all') return [...SCOPES];
  const items = csv.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = items.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new AppError('invalid_request', `Unknown scope(s): ${unknown.join(', ')}. Known: ${SCOPES.join(', ')}.`);
  if (items.length === 0) throw new AppError('invalid_request', 'At least one scope is required (or "all").');
  return [...new Set(items as Scope[])];
}

export async function createKey(db: SqlSource, input: { name: string; scopes: Scope[]; expiresAt?: Date }): Promise<IssuedKey> {
  const id = generateKeyId();
  const { key, hash } = generateKey(id);
  await sqlOf(db).query(`INSERT INTO "ApiKey" (id, name, scopes, "secretHash", "expiresAt") VALUES ($1, $2, $3::text[], $4, $5)`, [
    id,
    input.name,
    input.scopes,
    hash,
    input.expiresAt ?? null,
  ]);
  return { id, name: input.name, scopes: input.scopes, key };
}

export async function listKeys(db: SqlSource) {
  const { rows } = await sqlOf(db).query<ApiKeyRow>(
    `SELECT id, name, coalesce(scopes, '{}') AS scopes, "createdAt", "lastUsedAt", "revokedAt", "expiresAt" FROM "ApiKey" ORDER BY "createdAt", id`,
  );
  return rows.map((k) => ({
    id: k.id,
    name: k.name,
    scopes: k.scopes,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    expiresAt: k.expiresAt?.toISOString() ?? null,
  }));
}

/**
 * Revokes a key and, in the same transaction, ends every OAuth grant it approved: the key and the grants' tokens
 * stop working together, within 1 s on every instance. Returns how many grants ended.
 */
export async function revokeKey(db: SqlSource, id: string): Promise<{ grantsEnded: number }> {
  return sqlTransaction(db, async (tx) => {
    const { rowCount } = await tx.query(`UPDATE "ApiKey" SET "revokedAt" = now() WHERE id = $1 AND "revokedAt" IS NULL`, [id]);
    if (rowCount === 0) throw new AppError('not_found', `No active key with id "${id}".`);
    return { grantsEnded: await endGrants(tx, { apiKeyId: id }, 'the API key that approved it was revoked') };
  });
}

/**
 * Replaces the secret of a key in place: same id, name and scopes; the old secret stops working at once. Whoever held
 * the old secret may have approved grants with it, so the grants the key approved end in the same transaction.
 */
export async function rotateKey(db: SqlSource, id: string): Promise<IssuedKey & { grantsEnded: number }> {
  const { key, hash } = generateKey(id);
  return sqlTransaction(db, async (tx) => {
    const { rows } = await tx.query<Pick<ApiKeyRow, 'name' | 'scopes'>>(
      `UPDATE "ApiKey" SET "secretHash" = $2 WHERE id = $1 AND "revokedAt" IS NULL RETURNING name, coalesce(scopes, '{}') AS scopes`,
      [id, hash],
    );
    if (rows.length === 0) throw new AppError('not_found', `No active key with id "${id}".`);
    const grantsEnded = await endGrants(tx, { apiKeyId: id }, 'the API key that approved it was rotated');
    return { id, name: rows[0].name, scopes: rows[0].scopes.filter(isScope), key, grantsEnded };
  });
}
