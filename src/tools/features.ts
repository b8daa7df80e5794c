import { z } from 'zod';
import type { Tx } from '../db/client.ts';
import type { FeatureFlag } from '../generated/prisma/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { defineTool } from '../registry/define-tool.ts';
import { reviveSnapshot, type ReversibleEntity, type Snapshot } from '../registry/reversible.ts';
import { text, timestamp } from './shared-schemas.ts';

export const FEATURE_KEY_PATTERN = /^[a-z0-9][a-z0-9_.-]*$/;

const FeatureOut = z.object({ key: z.string(), enabled: z.boolean(), description: z.string().nullable(), updatedAt: timestamp() });

const snapshot = (row: FeatureFlag) => plainJson(row) as Snapshot;

export const featureEntity: ReversibleEntity = {
  entityType: 'feature',
  tools: ['features.set'],
  async load(tx, key) {
    const row = await tx.featureFlag.findUnique({ where: { key } });
    return row ? snapshot(row) : null;
  },
  async restore(tx: Tx, key, before) {
    if (before === null) {
      await tx.featureFlag.deleteMany({ where: { key } });
      return;
    }
    const data = reviveSnapshot(before, { omit: ['key', 'updatedAt'] }) as { enabled: boolean; description: string | null };
    await tx.featureFlag.upsert({ where: { key }, update: data, create: { key, ...data } });
  },
};

export const featureTools = [
  defineTool({
    name: 'features.list',
    title: 'List feature flags',
    description: 'Lists every named feature flag, by key.',
    scope: 'features:read',
    input: z.strictObject({}),
    output: z.array(FeatureOut),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler(_input, ctx) {
      const rows = await ctx.db.featureFlag.findMany({ orderBy: { key: 'asc' } });
      return rows.map((r) => snapshot(r) as z.input<typeof FeatureOut>);
    },
  }),

  defineTool({
    name: 'features.set',
    title: 'Set a feature flag',
    description: 'Creates the flag or changes it: enabled is required; description is kept when omitted (null clears it). Reversible with audit.revert.',
    scope: 'features:write',
    input: z.strictObject({
      key: z.string().min(1).max(100).regex(FEATURE_KEY_PATTERN, 'must match ^[a-z0-9][a-z0-9_.-]*$'),
      enabled: z.boolean(),
      description: text({ max: 500 }).nullable().optional(),
    }),
    output: FeatureOut,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    async handler({ key, enabled, description }, ctx) {
      // Row lock (when the flag exists) so the audit's `before` is the state this call replaced.
      await ctx.db.$queryRaw`SELECT key FROM "FeatureFlag" WHERE key = ${key} FOR UPDATE`;
      const before = await ctx.db.featureFlag.findUnique({ where: { key } });
      const after = await ctx.db.featureFlag.upsert({
        where: { key },
        update: { enabled, ...(description !== undefined ? { description } : {}) },
        create: { key, enabled, description: description ?? null },
      });
      ctx.audit({ entityType: 'feature', entityId: key, before: before && snapshot(before), after: snapshot(after) });
      return snapshot(after) as z.input<typeof FeatureOut>;
    },
  }),
];
