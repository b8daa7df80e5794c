import type { DbClient, Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { reviveSnapshot } from '../domain/revert.ts';
import type { FeatureFlag } from '../generated/prisma/client.ts';
import type { ReversibleEntity } from './reversible.ts';

export const featureSnapshot = (row: FeatureFlag) => plainJson(row);

export const listFeatures = (db: DbClient) => db.featureFlag.findMany({ orderBy: { key: 'asc' } });

/** Creates or changes a flag; the description is kept when not given (null clears it). */
export async function setFeature(tx: Tx, input: { key: string; enabled: boolean; description?: string | null }) {
  const { key, enabled, description } = input;
  // Row lock (when the flag exists) so the audit's `before` is the state this call replaced.
  await tx.$queryRaw`SELECT key FROM "FeatureFlag" WHERE key = ${key} FOR UPDATE`;
  const before = await tx.featureFlag.findUnique({ where: { key } });
  const after = await tx.featureFlag.upsert({
    where: { key },
    update: { enabled, ...(description !== undefined ? { description } : {}) },
    create: { key, enabled, description: description ?? null },
  });
  return { before, after };
}

export const featureEntity: ReversibleEntity = {
  entityType: 'feature',
  async load(tx, key) {
    const row = await tx.featureFlag.findUnique({ where: { key } });
    return row ? featureSnapshot(row) : null;
  },
  async restore(tx, key, before) {
    if (before === null) {
      await tx.featureFlag.deleteMany({ where: { key } });
      return;
    }
    const data = reviveSnapshot(before, { omit: ['key', 'updatedAt'] }) as { enabled: boolean; description: string | null };
    await tx.featureFlag.upsert({ where: { key }, update: data, create: { key, ...data } });
  },
};
