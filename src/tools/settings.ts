import { z } from 'zod';
import type { Tx } from '../db/client.ts';
import type { ShopSettings } from '../generated/prisma/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import type { PricingSettings } from '../domain/pricing.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { reviveSnapshot, type ReversibleEntity, type Snapshot } from '../registry/reversible.ts';
import { oere, text, timestamp } from './shared-schemas.ts';

const SETTINGS_ID = 1;

/**
 * The settings row, created with the schema's defaults on first use: a fresh database has none, and the defaults
 * live in one place (schema.prisma) rather than being repeated here.
 */
export async function loadSettings(db: ToolContext['db']): Promise<ShopSettings> {
  const row = await db.shopSettings.findUnique({ where: { id: SETTINGS_ID } });
  if (row) return row;
  await db.$executeRaw`INSERT INTO "ShopSettings" (id, "updatedAt") VALUES (${SETTINGS_ID}, now()) ON CONFLICT (id) DO NOTHING`;
  return db.shopSettings.findUniqueOrThrow({ where: { id: SETTINGS_ID } });
}

export function pricingSettings(row: ShopSettings): PricingSettings {
  return {
    shippingFeeDkk: Number(row.shippingFeeDkk),
    freeShippingThresholdDkk: row.freeShippingThresholdDkk === null ? null : Number(row.freeShippingThresholdDkk),
    vatRateBasisPoints: row.vatRateBasisPoints,
  };
}

export const SettingsUpdateInput = z.strictObject({
  shopName: text({ min: 1, max: 200 }).optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as DKK').optional().describe('ISO 4217 code of the currency amounts are in.'),
  shippingFeeDkk: oere().optional().describe('Shipping fee in øre.'),
  freeShippingThresholdDkk: oere().nullable().optional().describe('Orders whose goods (after discount) reach this many øre ship free; null: never free.'),
  vatRateBasisPoints: z.number().int().min(0).max(10_000).optional().describe('VAT rate in basis points (2500 = 25 %); prices include VAT.'),
});

const SettingsOut = z.object({
  shopName: z.string(),
  currency: z.string(),
  shippingFeeDkk: z.number().int(),
  freeShippingThresholdDkk: z.number().int().nullable(),
  vatRateBasisPoints: z.number().int(),
  updatedAt: timestamp(),
});

const snapshot = (row: ShopSettings) => plainJson(row) as Snapshot;

export const settingsEntity: ReversibleEntity = {
  entityType: 'settings',
  tools: ['settings.update'],
  async load(tx, id) {
    const row = await tx.shopSettings.findUnique({ where: { id: Number(id) } });
    return row ? snapshot(row) : null;
  },
  async restore(tx: Tx, id, before) {
    // The row always existed before an update (settings.update creates it first), so `before` is never null.
    if (before === null) throw new AppError('not_revertible', 'The settings row cannot be removed.');
    const data = reviveSnapshot(before, { bigint: ['shippingFeeDkk', 'freeShippingThresholdDkk'], omit: ['id', 'updatedAt'] });
    await tx.shopSettings.update({ where: { id: Number(id) }, data });
  },
};

export const settingsTools = [
  defineTool({
    name: 'settings.get',
    title: 'Get shop settings',
    description: 'Returns the shop settings checkout uses: shop name, currency, shipping fee, free-shipping threshold (øre) and VAT rate (basis points; prices include VAT).',
    scope: 'settings:read',
    input: z.strictObject({}),
    output: SettingsOut,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: async (_input, ctx) => snapshot(await loadSettings(ctx.db)) as z.input<typeof SettingsOut>,
  }),

  defineTool({
    name: 'settings.update',
    title: 'Update shop settings',
    description: 'Changes the given settings; fields left out are unchanged. Applies to carts priced and orders placed afterwards (existing orders keep their amounts). Reversible with audit.revert.',
    scope: 'settings:write',
    input: SettingsUpdateInput,
    output: SettingsOut,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    async handler(input, ctx) {
      const { shippingFeeDkk, freeShippingThresholdDkk, ...rest } = input;
      if (Object.values(input).every((v) => v === undefined)) {
        throw new AppError('invalid_request', '(body): give at least one setting to change.');
      }
      await loadSettings(ctx.db);
      // Row lock: the audit's `before` must be the state this update actually replaced.
      await ctx.db.$queryRaw`SELECT id FROM "ShopSettings" WHERE id = ${SETTINGS_ID} FOR UPDATE`;
      const before = await ctx.db.shopSettings.findUniqueOrThrow({ where: { id: SETTINGS_ID } });
      const after = await ctx.db.shopSettings.update({
        where: { id: SETTINGS_ID },
        data: {
          ...rest,
          ...(shippingFeeDkk !== undefined ? { shippingFeeDkk: BigInt(shippingFeeDkk) } : {}),
          ...(freeShippingThresholdDkk !== undefined ? { freeShippingThresholdDkk: freeShippingThresholdDkk === null ? null : BigInt(freeShippingThresholdDkk) } : {}),
        },
      });
      ctx.audit({ entityType: 'settings', entityId: String(SETTINGS_ID), before: snapshot(before), after: snapshot(after) });
      return snapshot(after) as z.input<typeof SettingsOut>;
    },
  }),
];
