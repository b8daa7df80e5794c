import type { Db, DbClient, Tx } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { toJsonValue } from '../db/json-value.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/** Audit entries of the grant lifecycle; `tool` names the act, as tool calls do for theirs. */
const GRANT_ENTITY = 'oauth_grant';

export type GrantRecord = {
  id: string;
  clientId: string;
  clientName: string | null;
  apiKeyId: string;
  scopes: string[];
  resource: string;
  createdAt: Date;
};

/** Stores what the operator approved, with its audit entry, in one transaction. */
export async function recordGrant(db: Db, grant: GrantRecord): Promise<void> {
  await db.$transaction([
    db.oAuthGrant.create({ data: grant }),
    db.auditEntry.create({
      data: {
        apiKeyId: grant.apiKeyId,
        grantId: grant.id,
        tool: 'oauth.grant',
        entityType: GRANT_ENTITY,
        entityId: grant.id,
        after: toJsonValue({ clientId: grant.clientId, clientName: grant.clientName, scopes: grant.scopes, resource: grant.resource }),
      },
    }),
  ]);
}

export async function listGrants(db: Db, opts: { includeRevoked?: boolean } = {}) {
  const rows = await db.oAuthGrant.findMany({ where: opts.includeRevoked ? {} : { revokedAt: null }, orderBy: { createdAt: 'asc' } });
  const keys = await db.apiKey.findMany({ where: { id: { in: [...new Set(rows.map((g) => g.apiKeyId))] } }, select: { id: true, name: true } });
  const keyName = new Map(keys.map((k) => [k.id, k.name]));
  return rows.map((g) => ({
    id: g.id,
    clientId: g.clientId,
    clientName: g.clientName,
    apiKeyId: g.apiKeyId,
    apiKeyName: keyName.get(g.apiKeyId) ?? null,
    scopes: g.scopes,
    resource: g.resource,
    createdAt: g.createdAt.toISOString(),
    lastUsedAt: g.lastUsedAt?.toISOString() ?? null,
    revokedAt: g.revokedAt?.toISOString() ?? null,
  }));
}

/**
 * The grant and the API key that approved it, while both are in force: null once the grant is revoked, or its key
 * is revoked or expired. Every use of a grant's tokens (an access token's check, a refresh, a code exchange) asks.
 */
export async function grantInForce(db: DbClient, grantId: string) {
  const grant = await db.oAuthGrant.findUnique({ where: { id: grantId } });
  if (!grant || grant.revokedAt) return null;
  const key = await db.apiKey.findUnique({ where: { id: grant.apiKeyId } });
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) return null;
  return { grant, key };
}

/**
 * Ends a grant: its tokens stop working within a second on every instance (they check the grant on use), its
 * stored tokens and codes are deleted, and the act is audited.
 */
export async function revokeGrant(db: Db, id: string): Promise<void> {
  if (!(await markGrantRevoked(db, id, 'revoked by the operator'))) throw new AppError('not_found', `No active grant with id "${id}".`);
}

/** Marks a grant revoked (once) and deletes everything issued under it; false when it was not active. */
export async function markGrantRevoked(db: Db, id: string, reason: string): Promise<boolean> {
  return (await db.$transaction((tx) => endGrants(tx, { id }, reason))) > 0;
}

/**
 * Ends the active grants `where` selects, inside the caller's transaction (a key's revocation or rotation ends the
 * grants it approved in the same commit): marks them revoked, audits each, and deletes their stored tokens, codes
 * and library grant. Only rows this call revoked are counted and audited, so concurrent calls never audit twice.
 */
export async function endGrants(tx: Tx, where: Pick<Prisma.OAuthGrantWhereInput, 'id' | 'apiKeyId' | 'clientId'>, reason: string): Promise<number> {
  const ended = await tx.oAuthGrant.updateManyAndReturn({ where: { ...where, revokedAt: null }, data: { revokedAt: new Date() } });
  if (ended.length === 0) return 0;
  const ids = ended.map((g) => g.id);
  await tx.auditEntry.createMany({
    data: ended.map((grant) => ({
      apiKeyId: grant.apiKeyId,
      grantId: grant.id,
      tool: 'oauth.revoke',
      entityType: GRANT_ENTITY,
      entityId: grant.id,
      before: toJsonValue({ clientId: grant.clientId, scopes: grant.scopes, resource: grant.resource }),
      meta: toJsonValue({ reason }),
    })),
  });
  await tx.oAuthRecord.deleteMany({ where: { OR: [{ grantId: { in: ids } }, { id: { in: ids.map((id) => `Grant:${id}`) } }] } });
  return ended.length;
}
