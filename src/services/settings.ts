import type { DbClient, Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import type { PricingSettings } from '../domain/pricing.ts';
import { reviveSnapshot } from '../domain/revert.ts';
import { AppError } from '../errors.ts';
import type { ShopSettings } from '../generated/prisma/client.ts';
import type { ReversibleEntity } from './reversible.ts';

const SETTINGS_ID = 1;

/**
 * The settings row, created with the schema's defaults on first use: a fresh database has none, and the defaults
 * live in one place (schema.prisma) rather than being repeated here.
 */
export async function loadSettings(db: DbClient): Promise<ShopSettings> {
  const row = await db.shopSettings.findUnique({ where: { id: SETTINGS_ID } });
  if (row) return row;
  await db.$executeRaw`INSERT INTO "ShopSettings" (id, "updatedAt") VALUES (${SETTINGS_ID}, now()) ON CONFLICT (id) DO NOTHING`;
  return db.shopSettings.findUniqueOrThrow({ where: { id: SETTINGS_ID } });
}

export function pricingSettings(row: Pick<ShopSettings, 'shippingFeeDkk' | 'freeShippingThresholdDkk' | 'vatRateBasisPoints'>): PricingSettings {
  return {
    shippingFeeDkk: Number(row.shippingFeeDkk),
    freeShippingThresholdDkk: row.freeShippingThresholdDkk === null ? null : Number(row.freeShippingThresholdDkk),
    vatRateBasisPoints: row.vatRateBasisPoints,
  };
}

export type SettingsChange = {
  shopName?: string; currency?: string; language?: string; shippingFeeDkk?: number; freeShippingThresholdDkk?: number | null; vatRateBasisPoints?: number;
};

export async function updateSettings(tx: Tx, change: SettingsChange) {
  const { shippingFeeDkk, freeShippingThresholdDkk, ...rest } = change;
  if (Object.values(change).every((v) => v === undefined)) {
    throw new AppError('nothing_to_change', '(body): give at least one setting to change.');
  }
  await loadSettings(tx);
  // Row lock: the audit's `before` must be the state this update actually replaced.
  await tx.$queryRaw`SELECT id FROM "ShopSettings" WHERE id = ${SETTINGS_ID} FOR UPDATE`;
  const before = await tx.shopSettings.findUniqueOrThrow({ where: { id: SETTINGS_ID } });
  const after = await tx.shopSettings.update({
    where: { id: SETTINGS_ID },
    data: {
      ...rest,
      ...(shippingFeeDkk !== undefined ? { shippingFeeDkk: BigInt(shippingFeeDkk) } : {}),
      ...(freeShippingThresholdDkk !== undefined ? { freeShippingThresholdDkk: freeShippingThresholdDkk === null ? null : BigInt(freeShippingThresholdDkk) } : {}),
    },
  });
  return { before, after };
}

export const settingsSnapshot = (row: ShopSettings) => plainJson(row);

export const settingsEntity: ReversibleEntity = {
  entityType: 'settings',
  async load(tx, id) {
    const row = await tx.shopSettings.findUnique({ where: { id: Number(id) } });
    return row ? settingsSnapshot(row) : null;
  },
  async restore(tx, id, before) {
    // The row always existed before an update (settings.update creates it first), so `before` is never null.
    if (before === null) throw new AppError('not_revertible', 'The settings row cannot be removed.');
    const data = reviveSnapshot(before, { bigint: ['shippingFeeDkk', 'freeShippingThresholdDkk'], omit: ['id', 'updatedAt'] });
    await tx.shopSettings.update({ where: { id: Number(id) }, data });
  },
};
