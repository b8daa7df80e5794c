import type { DbClient, Tx } from '../db/client.ts';
import { asSnapshot, hasChangedSince } from '../domain/revert.ts';
import { AppError } from '../errors.ts';
import type { ReversibleEntity } from './reversible.ts';

export type AuditFilter = { tool?: string; entityType?: string; entityId?: string; limit: number; cursor?: { at: Date; id: string } };

/** Entries newest first, one page past the cursor; `hasMore` tells whether another page follows. */
export async function listAuditEntries(db: DbClient, filter: AuditFilter) {
  const { tool, entityType, entityId, cursor, limit } = filter;
  const rows = await db.auditEntry.findMany({
    where: {
      ...(tool ? { tool } : {}),
      ...(entityType ? { entityType } : {}),
      ...(entityId ? { entityId } : {}),
      ...(cursor ? { OR: [{ at: { lt: cursor.at } }, { at: cursor.at, id: { lt: cursor.id } }] } : {}),
    },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  return { entries: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** The entity audit.revert may restore for an entry, or null when the entry's tool is not reversible for it. */
export type RevertLookup = (entityType: string, tool: string) => ReversibleEntity | null;

/**
 * Restores the state an entry recorded before its change. Refused when the entity changed after the entry, unless
 * forced: a revert must not silently discard a later change.
 */
export async function revertEntry(tx: Tx, lookup: RevertLookup, auditId: string, force: boolean) {
  const entry = await tx.auditEntry.findUnique({ where: { id: auditId } });
  if (!entry) throw new AppError('not_found', `No audit entry with id "${auditId}".`);
  const entity = lookup(entry.entityType, entry.tool);
  if (!entity) throw new AppError('not_revertible', `Entries of ${entry.tool} cannot be reverted.`);
  // Serialise reverts of one entity so two concurrent reverts cannot both pass the conflict check.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${entry.entityType}:${entry.entityId}`}))`;
  const current = await entity.load(tx, entry.entityId);
  if (!force && hasChangedSince(asSnapshot(entry.after), current)) {
    throw new AppError('revert_conflict', `${entry.entityType} ${entry.entityId} changed after entry ${auditId}; pass force: true to revert anyway.`);
  }
  const before = asSnapshot(entry.before);
  await entity.restore(tx, entry.entityId, before);
  return { entry, current, restored: await entity.load(tx, entry.entityId), removed: before === null };
}
