import type { Db, DbClient } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { sqlOf, sqlTransaction, type Sql, type SqlSource } from '../db/sql.ts';
import { AppError } from '../errors.ts';

// What the operator CLI runs (list, revoke, and ending a key's grants) is plain SQL on pg (src/db/sql.ts), so the
// CLI never loads Prisma; nothing here imports Prisma's runtime.

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
        after: { clientId: grant.clientId, clientName: grant.clientName, scopes: grant.scopes, resource: grant.resource },
      },
    }),
  ]);
}

type GrantRow = {
  id: string;
  clientId: string;
  clientName: string | null;
  apiKeyId: string;
  apiKeyName: string | null;
  scopes: string[];
  resource: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

export async function listGrants(db: SqlSource, opts: { includeRevoked?: boolean } = {}) {
  const { rows } = await sqlOf(db).query<GrantRow>(
    `SELECT g.id, g."clientId", g."clientName", g."apiKeyId", k.name AS "apiKeyName", coalesce(g.scopes, '{}') AS scopes, g.resource,
            g."createdAt", g."lastUsedAt", g."revokedAt"
       FROM "OAuthGrant" g LEFT JOIN "ApiKey" k ON k.id = g."apiKeyId"
      WHERE $1::boolean OR g."revokedAt" IS NULL
      ORDER BY g."createdAt", g.id`,
    [opts.includeRevoked ?? false],
  );
  return rows.map((g) => ({
    id: g.id,
    clientId: g.clientId,
    clientName: g.clientName,
    apiKeyId: g.apiKeyId,
    apiKeyName: g.apiKeyName,
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
export async function revokeGrant(db: SqlSource, id: string): Promise<void> {
  if (!(await markGrantRevoked(db, id, 'revoked by the operator'))) throw new AppError('not_found', `No active grant with id "${id}".`);
}

/** Marks a grant revoked (once) and deletes everything issued under it; false when it was not active. */
export async function markGrantRevoked(db: SqlSource, id: string, reason: string): Promise<boolean> {
  return (await sqlTransaction(db, (tx) => endGrants(tx, { id }, reason))) > 0;
}

/** The grants to end: one, those one API key approved, or those of some clients. */
export type GrantsToEnd = { id: string } | { apiKeyId: string } | { clientIds: string[] };

type EndedGrant = { id: string; clientId: string; apiKeyId: string; scopes: string[]; resource: string };

/**
 * Ends the active grants `which` selects, inside the caller's transaction (a key's revocation or rotation ends the
 * grants it approved in the same commit): marks them revoked, audits each, and deletes their stored tokens, codes
 * and library grant. Only rows this call revoked are counted and audited, so concurrent calls never audit twice.
 */
export async function endGrants(tx: Sql, which: GrantsToEnd, reason: string): Promise<number> {
  const [column, values] = 'id' in which ? ['id', [which.id]] : 'apiKeyId' in which ? ['"apiKeyId"', [which.apiKeyId]] : ['"clientId"', which.clientIds];
  const { rows: ended } = await tx.query<EndedGrant>(
    `UPDATE "OAuthGrant" SET "revokedAt" = now() WHERE ${column} = ANY($1::text[]) AND "revokedAt" IS NULL
     RETURNING id, "clientId", "apiKeyId", coalesce(scopes, '{}') AS scopes, resource`,
    [values],
  );
  if (ended.length === 0) return 0;
  const ids = ended.map((g) => g.id);
  await tx.query(
    `WITH audited AS (
       INSERT INTO "AuditEntry" (id, "apiKeyId", "grantId", tool, "entityType", "entityId", before, meta)
       SELECT e.id, e."apiKeyId", e."grantId", 'oauth.revoke', $5, e."grantId", e.before, jsonb_build_object('reason', $6::text)
         FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) AS e(id, "apiKeyId", "grantId", before)
     )
     DELETE FROM "OAuthRecord" WHERE "grantId" = ANY($3::text[]) OR id = ANY($7::text[])`,
    [
      ended.map(() => newId()),
      ended.map((g) => g.apiKeyId),
      ids,
      ended.map((g) => JSON.stringify({ clientId: g.clientId, scopes: g.scopes, resource: g.resource })),
      GRANT_ENTITY,
      reason,
      ids.map((id) => `Grant:${id}`),
    ],
  );
  return ended.length;
}
