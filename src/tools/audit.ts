import { z } from 'zod';
import { hasChangedSince } from '../domain/revert.ts';
import { AppError } from '../errors.ts';
import { defineTool } from '../registry/define-tool.ts';
import type { ReversibleEntity, Snapshot } from '../registry/reversible.ts';
import { categoryEntity } from './categories.ts';
import { discountEntity } from './discounts.ts';
import { featureEntity } from './features.ts';
import { pageEntity } from './pages.ts';
import { productEntity } from './products.ts';
import { serviceEntity } from './services.ts';
import { settingsEntity } from './settings.ts';
import { limit, text, timestamp } from './shared-schemas.ts';

/** Every entity audit.revert can restore; each is declared in the file of its domain. */
const REVERSIBLE: readonly ReversibleEntity[] = [productEntity, categoryEntity, pageEntity, serviceEntity, discountEntity, settingsEntity, featureEntity];
const byType = new Map(REVERSIBLE.map((e) => [e.entityType, e]));

const AuditEntryOut = z.object({
  id: z.string(),
  at: timestamp(),
  apiKeyId: z.string().nullable(),
  tool: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  meta: z.unknown(),
  revertOf: z.string().nullable(),
  reversible: z.boolean(),
});

/** Cursor = the last entry's (at, id), so pages stay stable while new entries arrive. */
const Cursor = z
  .string()
  .max(200)
  .transform((raw, ctx) => {
    const decoded = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!decoded) {
      ctx.addIssue({ code: 'custom', message: 'is not a cursor returned by audit.list' });
      return z.NEVER;
    }
    return { at: new Date(Number(decoded[1])), id: decoded[2] };
  });

const encodeCursor = (at: Date, id: string) => Buffer.from(`${at.getTime()}.${id}`).toString('base64url');

export const auditTools = [
  defineTool({
    name: 'audit.list',
    title: 'List audit entries',
    description: 'Lists audit entries newest first: which key changed which entity with which tool, with the state before and after. Page with nextCursor.',
    scope: 'audit:read',
    input: z.strictObject({
      tool: text({ min: 1, max: 100 }).optional(),
      entityType: text({ min: 1, max: 100 }).optional(),
      entityId: text({ min: 1, max: 100 }).optional(),
      limit: limit(20),
      cursor: Cursor.optional(),
    }),
    output: z.object({ entries: z.array(AuditEntryOut), nextCursor: z.string().nullable() }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler({ tool, entityType, entityId, limit: take, cursor }, ctx) {
      const rows = await ctx.db.auditEntry.findMany({
        where: {
          ...(tool ? { tool } : {}),
          ...(entityType ? { entityType } : {}),
          ...(entityId ? { entityId } : {}),
          ...(cursor ? { OR: [{ at: { lt: cursor.at } }, { at: cursor.at, id: { lt: cursor.id } }] } : {}),
        },
        orderBy: [{ at: 'desc' }, { id: 'desc' }],
        take: take + 1,
      });
      const page = rows.slice(0, take);
      const last = page[page.length - 1];
      return {
        entries: page.map((e) => ({
          ...e,
          at: e.at.toISOString(),
          reversible: byType.get(e.entityType)?.tools.includes(e.tool) ?? false,
        })),
        nextCursor: rows.length > take && last ? encodeCursor(last.at, last.id) : null,
      };
    },
  }),

  defineTool({
    name: 'audit.revert',
    title: 'Revert an audited change',
    description:
      'Restores the state an audit entry recorded before its change (e.g. brings back a soft-deleted product). Refused with 422 revert_conflict when the entity changed again since, unless force: true. Needs confirm: true. The revert is itself audited.',
    scope: 'audit:revert',
    requiresConfirm: true,
    input: z.strictObject({
      auditId: text({ min: 1, max: 100 }),
      force: z.boolean().optional().describe('Revert even if the entity changed after the entry.'),
    }),
    output: z.object({ auditId: z.string(), entityType: z.string(), entityId: z.string(), restored: z.enum(['previous_state', 'removed']) }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    async handler({ auditId, force }, ctx) {
      const tx = ctx.db as Parameters<ReversibleEntity['load']>[0];
      const entry = await tx.auditEntry.findUnique({ where: { id: auditId } });
      if (!entry) throw new AppError('not_found', `No audit entry with id "${auditId}".`);
      const entity = byType.get(entry.entityType);
      if (!entity || !entity.tools.includes(entry.tool)) {
        throw new AppError('not_revertible', `Entries of ${entry.tool} cannot be reverted.`);
      }
      // Serialise reverts of one entity so two concurrent reverts cannot both pass the conflict check.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${entry.entityType}:${entry.entityId}`}))`;
      const current = await entity.load(tx, entry.entityId);
      const after = entry.after as Snapshot | null;
      if (!force && hasChangedSince(after, current)) {
        throw new AppError('revert_conflict', `${entry.entityType} ${entry.entityId} changed after entry ${auditId}; pass force: true to revert anyway.`);
      }
      const before = entry.before as Snapshot | null;
      await entity.restore(tx, entry.entityId, before);
      ctx.audit({ entityType: entry.entityType, entityId: entry.entityId, before: current, after: await entity.load(tx, entry.entityId), revertOf: entry.id });
      return { auditId, entityType: entry.entityType, entityId: entry.entityId, restored: before === null ? 'removed' as const : 'previous_state' as const };
    },
  }),
];
