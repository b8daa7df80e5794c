import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { endGrants } from '../oauth/grant-admin.ts';
import { SCOPES, isScope, type Scope } from '../registry/scopes.ts';
import { generateKey, generateKeyId } from './key-format.ts';

export type IssuedKey = { id: string; name: string; scopes: Scope[]; key: string };

/** Parses `all` or a comma-separated scope list; unknown scopes are an error, never silently dropped. */
export function parseScopes(csv: string): Scope[] {
  if (csv.trim() === 'all') return [...SCOPES];
  const items = csv.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = items.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new AppError('invalid_request', `Unknown scope(s): ${unknown.join(', ')}. Known: ${SCOPES.join(', ')}.`);
  if (items.length === 0) throw new AppError('invalid_request', 'At least one scope is required (or "all").');
  return [...new Set(items as Scope[])];
}

export async function createKey(db: Db, input: { name: string; scopes: Scope[]; expiresAt?: Date }): Promise<IssuedKey> {
  const id = generateKeyId();
  const { key, hash } = generateKey(id);
  await db.apiKey.create({ data: { id, name: input.name, scopes: input.scopes, secretHash: hash, expiresAt: input.expiresAt ?? null } });
  return { id, name: input.name, scopes: input.scopes, key };
}

export async function listKeys(db: Db) {
  const rows = await db.apiKey.findMany({ orderBy: { createdAt: 'asc' } });
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
export async function revokeKey(db: Db, id: string): Promise<{ grantsEnded: number }> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (count === 0) throw new AppError('not_found', `No active key with id "${id}".`);
    return { grantsEnded: await endGrants(tx, { apiKeyId: id }, 'the API key that approved it was revoked') };
  });
}

/**
 * Replaces the secret of a key in place: same id, name and scopes; the old secret stops working at once. Whoever held
 * the old secret may have approved grants with it, so the grants the key approved end in the same transaction.
 */
export async function rotateKey(db: Db, id: string): Promise<IssuedKey & { grantsEnded: number }> {
  const { key, hash } = generateKey(id);
  return db.$transaction(async (tx) => {
    const { count } = await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { secretHash: hash } });
    if (count === 0) throw new AppError('not_found', `No active key with id "${id}".`);
    const row = await tx.apiKey.findUniqueOrThrow({ where: { id } });
    const grantsEnded = await endGrants(tx, { apiKeyId: id }, 'the API key that approved it was rotated');
    return { id, name: row.name, scopes: row.scopes.filter(isScope), key, grantsEnded };
  });
}
