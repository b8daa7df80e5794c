import { z } from 'zod';
import { defineTool, type Tool } from '../registry/define-tool.ts';
import { revertTargets } from '../registry/reversible.ts';
import { encodeCursor, pageCursor } from '../schemas/cursor.ts';
import { limit } from '../schemas/numbers.ts';
import { text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { listAuditEntries, revertEntry, type RevertLookup } from '../services/audit.ts';

const AuditEntryOut = z.object({
  id: z.string(),
  at: timestamp(),
  apiKeyId: z.string().nullable(),
  /** Set when the call came with an OAuth access token: the grant that acted for the key. */
  grantId: z.string().nullable(),
  tool: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  meta: z.unknown(),
  revertOf: z.string().nullable(),
  reversible: z.boolean(),
});

const Cursor = pageCursor('audit.list');

/**
 * The audit tools over the other tools: what audit.revert may undo comes from their `audit.reversible`
 * declarations, so a new reversible tool needs nothing here.
 */
export function auditTools(tools: readonly Tool[]): Tool[] {
  const targets = revertTargets(tools);
  const lookup: RevertLookup = (entityType, tool) => {
    const target = targets.get(entityType);
    return target?.tools.has(tool) ? target.entity : null;
  };

  return [
    defineTool({
      name: 'audit.list',
      title: 'List audit entries',
      description: 'Lists audit entries newest first: which key changed which entity with which tool, with the state before and after. Page with nextCursor.',
      scope: 'audit:read',
      kind: 'read',
      errors: ['invalid_cursor'],
      input: z.strictObject({
        tool: text({ min: 1, max: 100 }).optional(),
        entityType: text({ min: 1, max: 100 }).optional(),
        entityId: text({ min: 1, max: 100 }).optional(),
        limit: limit(20),
        cursor: Cursor.optional().describe('nextCursor of the previous page (400 invalid_cursor for anything else).'),
      }),
      output: z.object({ entries: z.array(AuditEntryOut), nextCursor: z.string().nullable() }),
      async handler(filter, ctx) {
        const { entries, hasMore } = await listAuditEntries(ctx.db, filter);
        const last = entries[entries.length - 1];
        return {
          entries: entries.map((e) => ({ ...e, at: e.at.toISOString(), reversible: lookup(e.entityType, e.tool) !== null })),
          nextCursor: hasMore && last ? encodeCursor(last.at, last.id) : null,
        };
      },
    }),

    defineTool({
      name: 'audit.revert',
      title: 'Revert an audited change',
      description:
        'Restores the state an audit entry recorded before its change (e.g. brings back a soft-deleted product). Refused with 422 revert_conflict when the entity changed again since, unless force: true. Needs confirm: true. The revert is itself audited.',
      scope: 'audit:revert',
      kind: 'write',
      destructive: true,
      requiresConfirm: true,
      errors: ['not_found', 'not_revertible', 'revert_conflict', 'conflict', 'category_not_empty'],
      // A revert's own entry is history: undoing it would be another revert of the original entry.
      audit: { appendOnly: [...targets.keys()] },
      input: z.strictObject({
        auditId: text({ min: 1, max: 100 }),
        force: z.boolean().optional(),
      }),
      output: z.object({ auditId: z.string(), entityType: z.string(), entityId: z.string(), restored: z.enum(['previous_state', 'removed']) }),
      async handler({ auditId, force }, ctx) {
        const { entry, current, restored, removed } = await revertEntry(ctx.db, lookup, auditId, force ?? false);
        ctx.audit({ entityType: entry.entityType, entityId: entry.entityId, before: current, after: restored, revertOf: entry.id });
        return { auditId, entityType: entry.entityType, entityId: entry.entityId, restored: removed ? ('removed' as const) : ('previous_state' as const) };
      },
    }),
  ];
}
