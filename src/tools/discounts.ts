import { z } from 'zod';
import { plainJson } from '../domain/json-snapshot.ts';
import { defineTool } from '../registry/define-tool.ts';
import { limit, MAX_INT, positiveOere } from '../schemas/numbers.ts';
import { discountCodeRef } from '../schemas/references.ts';
import { timestamp, timestampInput } from '../schemas/time.ts';
import { createDiscount, discountEntity, discountSnapshot, listDiscounts, toggleDiscount } from '../services/discounts.ts';

const DiscountType = z.enum(['percent', 'fixed']);

const DiscountOut = z.object({
  id: z.string(),
  code: z.string(),
  type: DiscountType,
  value: z.number().int(),
  validUntil: timestamp().nullable(),
  usageLimit: z.number().int().nullable(),
  usageCount: z.number().int().min(0),
  active: z.boolean(),
});

const DiscountsCreateInput = z.strictObject({
  code: z
    .string()
    .min(3)
    .max(64)
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be letters, digits, ".", "_" or "-", starting with a letter or digit')
    .describe('Case-insensitive; stored and returned in upper case. Unique (409 conflict).'),
  type: DiscountType,
  value: positiveOere().describe('percent: 1..100 (above 100: 422 value_out_of_range); fixed: øre off the subtotal (never more than the subtotal).'),
  validUntil: timestampInput().nullable().optional().describe('The code stops working at this moment, which must be in the future (422 date_not_in_future); omit or null: no end.'),
  usageLimit: z.number().int().min(1).max(MAX_INT).nullable().optional().describe('How many orders may use the code; omit or null: unlimited.'),
});

export const discountTools = [
  defineTool({
    name: 'discounts.list',
    title: 'List discount codes',
    description: 'Lists discount codes newest first, with usageCount (orders that used the code; a cancelled order gives its use back).',
    scope: 'discounts:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({
      onlyActive: z.boolean().optional().describe('true: only codes switched on (active), whether or not expired or used up.'),
      limit: limit(50),
    }),
    output: z.array(DiscountOut),
    handler: async (input, ctx) => (await listDiscounts(ctx.db, input)).map((row) => plainJson(row)),
  }),

  defineTool({
    name: 'discounts.create',
    title: 'Create a discount code',
    description: 'Creates an active discount code: percent (rounded half-up to the øre) or fixed.',
    scope: 'discounts:write',
    kind: 'write',
    errors: ['conflict', 'value_out_of_range', 'date_not_in_future'],
    audit: { appendOnly: ['discount'] },
    input: DiscountsCreateInput,
    output: z.object({ id: z.string(), code: z.string() }),
    async handler(input, ctx) {
      const created = await createDiscount(ctx.db, input);
      ctx.audit({ entityType: 'discount', entityId: created.id, before: null, after: discountSnapshot(created) });
      return { id: created.id, code: created.code };
    },
  }),

  defineTool({
    name: 'discounts.toggle',
    title: 'Switch a discount code on or off',
    description: 'Sets active to the given value, or flips it when active is omitted. The code is matched case-insensitively.',
    scope: 'discounts:write',
    kind: 'write',
    errors: ['not_found'],
    audit: { reversible: [discountEntity] },
    input: z.strictObject({ code: discountCodeRef(), active: z.boolean().optional() }),
    output: z.object({ code: z.string(), active: z.boolean() }),
    async handler({ code, active }, ctx) {
      const { before, after } = await toggleDiscount(ctx.db, code, active);
      ctx.audit({ entityType: 'discount', entityId: after.id, before: discountSnapshot(before), after: discountSnapshot(after) });
      return { code: after.code, active: after.active };
    },
  }),
];
