import { z } from 'zod';
import { plainJson } from '../domain/json-snapshot.ts';
import { defineTool } from '../registry/define-tool.ts';
import { countryCode } from '../schemas/country.ts';
import { oere } from '../schemas/numbers.ts';
import { text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { deleteRate, listRates, rateSnapshot, setRate, shippingRateEntity } from '../services/shipping-rates.ts';

// A rate's id is what a checkout session offers as its fulfillment option id, so it stays short and URL-safe.
const RateId = z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, "-" or "_", starting with a letter or digit');

const RateOut = z.object({
  id: z.string(),
  title: z.string(),
  serviceLevel: z.string(),
  countryCode: z.string().nullable(),
  priceDkk: z.number().int(),
  freeFromDkk: z.number().int().nullable(),
  freeForVariantIds: z.array(z.string()),
  updatedAt: timestamp(),
});

export const shippingTools = [
  defineTool({
    name: 'shipping.list_rates',
    title: 'List shipping rates',
    description:
      'Lists the rates checkout sessions (UCP, ACP) offer as fulfillment options. With none, sessions offer the settings\' shipping fee.',
    scope: 'settings:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({}),
    output: z.array(RateOut),
    handler: async (_input, ctx) => (await listRates(ctx.db)).map((row) => plainJson(row)),
  }),

  defineTool({
    name: 'shipping.set_rate',
    title: 'Create or replace a shipping rate',
    description:
      'Creates the rate, or replaces all fields of the rate with this id. One rate per serviceLevel and countryCode (409 conflict names the other). A destination gets, per level, its country\'s rate, else the one for every country.',
    scope: 'settings:write',
    kind: 'write',
    idempotent: true,
    errors: ['not_found', 'conflict', 'invalid_country_code'],
    audit: { reversible: [shippingRateEntity] },
    input: z.strictObject({
      id: RateId.describe('The fulfillment option id checkouts offer.'),
      title: text({ min: 1, max: 100 }).describe('Shown to the buyer.'),
      serviceLevel: z.string().min(1).max(40).regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, "-" or "_"').describe('e.g. standard, express.'),
      countryCode: countryCode().nullable().describe('ISO 3166-1 alpha-2; null: every country.'),
      priceDkk: oere().describe('Øre.'),
      freeFromDkk: oere().nullable().default(null).describe('Free from this goods amount after discounts; null: never.'),
      freeForVariantIds: z.array(text({ min: 1, max: 100 })).max(100).default([]).describe('Free when the order holds one of these variants.'),
    }),
    output: z.object({ rate: RateOut, created: z.boolean() }),
    async handler(input, ctx) {
      const { before, after } = await setRate(ctx.db, input);
      ctx.audit({ entityType: shippingRateEntity.entityType, entityId: after.id, before: before && rateSnapshot(before), after: rateSnapshot(after) });
      return { rate: plainJson(after), created: before === null };
    },
  }),

  defineTool({
    name: 'shipping.delete_rate',
    title: 'Delete a shipping rate',
    description: 'Deletes a rate; sessions no longer offer it (a session that chose it must choose again). Needs confirm: true.',
    scope: 'settings:write',
    kind: 'write',
    destructive: true,
    idempotent: true,
    requiresConfirm: true,
    errors: ['not_found'],
    audit: { reversible: [shippingRateEntity] },
    input: z.strictObject({ id: text({ min: 1, max: 100 }) }),
    output: z.object({ ok: z.literal(true), id: z.string() }),
    async handler({ id }, ctx) {
      const deleted = await deleteRate(ctx.db, id);
      ctx.audit({ entityType: shippingRateEntity.entityType, entityId: id, before: rateSnapshot(deleted), after: null });
      return { ok: true as const, id };
    },
  }),
];
