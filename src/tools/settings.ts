import { z } from 'zod';
import { defineTool } from '../registry/define-tool.ts';
import { languageTag } from '../schemas/language-tag.ts';
import { oere } from '../schemas/numbers.ts';
import { text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { loadSettings, settingsEntity, settingsSnapshot, updateSettings } from '../services/settings.ts';

const SettingsUpdateInput = z.strictObject({
  shopName: text({ min: 1, max: 200 }).optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as DKK').optional().describe('ISO 4217 code of the currency amounts are in.'),
  language: languageTag()
    .optional()
    .describe('BCP 47 tag of the storefront content (Content-Language and <html lang> of the public pages).'),
  shippingFeeDkk: oere().optional().describe('Shipping fee in øre.'),
  freeShippingThresholdDkk: oere().nullable().optional().describe('Orders whose goods (after discount) reach this many øre ship free; null: never free.'),
  vatRateBasisPoints: z.number().int().min(0).max(10_000).optional().describe('VAT rate in basis points (2500 = 25 %); prices include VAT.'),
})
  // MCP hosts refuse a top-level anyOf, so "at least one setting" is published as minProperties; a body with only
  // dryRun passes it and is answered 422 nothing_to_change.
  .meta({ minProperties: 1 });

const SettingsOut = z.object({
  shopName: z.string(),
  currency: z.string(),
  language: z.string(),
  shippingFeeDkk: z.number().int(),
  freeShippingThresholdDkk: z.number().int().nullable(),
  vatRateBasisPoints: z.number().int(),
  updatedAt: timestamp(),
});

export const settingsTools = [
  defineTool({
    name: 'settings.get',
    title: 'Get shop settings',
    description: 'Returns the shop settings: shop name, currency, storefront language, shipping fee, free-shipping threshold (øre) and VAT rate (basis points; prices include VAT).',
    scope: 'settings:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({}),
    output: SettingsOut,
    handler: async (_input, ctx) => settingsSnapshot(await loadSettings(ctx.db)),
  }),

  defineTool({
    name: 'settings.update',
    title: 'Update shop settings',
    description: 'Changes the given settings; fields left out are unchanged, and at least one must be given (422 nothing_to_change). Applies to carts priced and orders placed afterwards (existing orders keep their amounts).',
    scope: 'settings:write',
    kind: 'write',
    idempotent: true,
    errors: ['nothing_to_change', 'invalid_language_tag'],
    audit: { reversible: [settingsEntity] },
    input: SettingsUpdateInput,
    output: SettingsOut,
    async handler(input, ctx) {
      const { before, after } = await updateSettings(ctx.db, input);
      ctx.audit({ entityType: settingsEntity.entityType, entityId: String(after.id), before: settingsSnapshot(before), after: settingsSnapshot(after) });
      return settingsSnapshot(after);
    },
  }),
];
