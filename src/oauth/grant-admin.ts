import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { toJsonValue } from '../db/json-value.ts';

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
  return rows.map((g) => ({
    id: g.id,
    clientId: g.clientId,
    clientName: g.clientName,
    apiKeyId: g.apiKeyId,
    scopes: g.scopes,
    resource: g.resource,
    createdAt: g.createdAt.toISOString(),
    lastUsedAt: g.lastUsedAt?.toISOString() ?? null,
    revokedAt: g.revokedAt?.toISOString() ?? null,
  }));
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
  const revoked = await db.$transaction(async (tx) => {
    const { count } = await tx.oAuthGrant.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (count === 0) return false;
    const grant = await tx.oAuthGrant.findUniqueOrThrow({ where: { id } });
    await tx.auditEntry.create({
      data: {
        apiKeyId: grant.apiKeyId,
        grantId: id,
        tool: 'oauth.revoke',
        entityType: GRANT_ENTITY,
        entityId: id,
        before: toJsonValue({ clientId: grant.clientId, scopes: grant.scopes, resource: grant.resource }),
        meta: toJsonValue({ reason }),
      },
    });
    return true;
  });
  await db.oAuthRecord.deleteMany({ where: { OR: [{ grantId: id }, { id: `Grant:${id}` }] } });
  return revoked;
}
