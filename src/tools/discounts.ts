import { z } from 'zod';
import type { Tx } from '../db/client.ts';
import type { DiscountCode } from '../generated/prisma/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import type { DiscountTerms } from '../domain/pricing.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { reviveSnapshot, type ReversibleEntity, type Snapshot } from '../registry/reversible.ts';
import { limit, MAX_INT, positiveOere, text, timestamp, timestampInput } from './shared-schemas.ts';

/** Codes are case-insensitive: stored, compared and returned in upper case. */
export const normalizeCode = (code: string) => code.toUpperCase();

/** A code as an agent passes it to checkout or toggle: any non-empty text (an unknown one is reported, not a 400). */
export const discountCodeRef = () => text({ min: 1, max: 64 });

const DiscountOut = z.object({
  id: z.string(),
  code: z.string(),
  type: z.string(),
  value: z.number().int(),
  validUntil: timestamp().nullable(),
  usageLimit: z.number().int().nullable(),
  usageCount: z.number().int().min(0),
  active: z.boolean(),
});

const toOutput = (row: DiscountCode) => plainJson(row) as z.input<typeof DiscountOut>;

/** Why a code cannot be used right now, or null when it can. */
export function discountUnavailableReason(row: DiscountCode | null, now: Date): string | null {
  if (!row) return 'does not exist';
  if (!row.active) return 'is inactive';
  if (row.validUntil !== null && row.validUntil <= now) return `has expired (valid until ${row.validUntil.toISOString()})`;
  if (row.usageLimit !== null && row.usageCount >= row.usageLimit) return `is used up (${row.usageLimit} use(s))`;
  return null;
}

export function discountTerms(row: Pick<DiscountCode, 'type' | 'value'>): DiscountTerms {
  return { type: row.type === 'percent' ? 'percent' : 'fixed', value: Number(row.value) };
}

/** The code's row if it can be used now; 422 discount_unavailable otherwise. Reads only (cart previews). */
export async function usableDiscount(db: ToolContext['db'], code: string): Promise<DiscountCode> {
  const row = await db.discountCode.findUnique({ where: { code: normalizeCode(code) } });
  const reason = discountUnavailableReason(row, new Date());
  if (reason !== null || !row) throw new AppError('discount_unavailable', `Discount code "${normalizeCode(code)}" ${reason}.`);
  return row;
}

/**
 * Counts one use of the code, atomically: the conditional UPDATE only matches while the code is active, unexpired
 * and below its usage limit, and concurrent redemptions queue on the row lock and re-check those conditions, so a
 * code is never used more than usageLimit times however many checkouts race for it.
 */
export async function redeemDiscount(tx: ToolContext['db'], code: string): Promise<DiscountCode> {
  const normalized = normalizeCode(code);
  const [row] = await tx.$queryRaw<DiscountCode[]>`
    UPDATE "DiscountCode" SET "usageCount" = "usageCount" + 1, "updatedAt" = now()
    WHERE code = ${normalized} AND active
      AND ("validUntil" IS NULL OR "validUntil" > now())
      AND ("usageLimit" IS NULL OR "usageCount" < "usageLimit")
    RETURNING *`;
  if (row) return row;
  const current = await tx.discountCode.findUnique({ where: { code: normalized } });
  throw new AppError('discount_unavailable', `Discount code "${normalized}" ${discountUnavailableReason(current, new Date()) ?? 'is used up'}.`);
}

/** Gives one use back (a cancelled order); never below zero. */
export async function releaseDiscount(tx: ToolContext['db'], code: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE "DiscountCode" SET "usageCount" = "usageCount" - 1, "updatedAt" = now()
    WHERE code = ${normalizeCode(code)} AND "usageCount" > 0`;
}

/**
 * The audited state of a code: its terms, not its usage. usageCount moves with every checkout, and counting that as
 * "changed since" would make every toggle of a code in use unrevertable; a revert must never rewrite usage either.
 */
function configSnapshot(row: DiscountCode): Snapshot {
  const { usageCount: _usage, updatedAt: _updated, ...config } = row;
  return plainJson(config) as Snapshot;
}

export const discountEntity: ReversibleEntity = {
  entityType: 'discount',
  tools: ['discounts.toggle'],
  async load(tx, id) {
    const row = await tx.discountCode.findUnique({ where: { id } });
    return row ? configSnapshot(row) : null;
  },
  async restore(tx: Tx, id, before) {
    // Orders refer to codes by name, so a code is never deleted: "did not exist" restores as inactive.
    const data = before === null
      ? { active: false }
      : reviveSnapshot(before, { bigint: ['value', 'usageLimit'], date: ['validUntil', 'createdAt'], omit: ['id'] });
    await tx.discountCode.update({ where: { id }, data });
  },
};

export const DiscountsCreateInput = z.strictObject({
  code: z
    .string()
    .min(3)
    .max(64)
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be letters, digits, ".", "_" or "-", starting with a letter or digit')
    .describe('Case-insensitive; stored and returned in upper case. Unique (409 conflict).'),
  type: z.enum(['percent', 'fixed']),
  value: positiveOere().describe('percent: 1..100; fixed: øre off the subtotal (never more than the subtotal).'),
  validUntil: timestampInput().nullable().optional().describe('The code stops working at this moment; omit or null: no end.'),
  usageLimit: z.number().int().min(1).max(MAX_INT).nullable().optional().describe('How many orders may use the code; omit or null: unlimited.'),
});

export const discountTools = [
  defineTool({
    name: 'discounts.list',
    title: 'List discount codes',
    description: 'Lists discount codes newest first, with usageCount (orders that used the code; a cancelled order gives its use back).',
    scope: 'discounts:read',
    input: z.strictObject({
      onlyActive: z.boolean().optional().describe('true: only codes switched on (active), whether or not expired or used up.'),
      limit: limit(50),
    }),
    output: z.array(DiscountOut),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler({ onlyActive, limit: take }, ctx) {
      const rows = await ctx.db.discountCode.findMany({
        where: onlyActive ? { active: true } : {},
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take,
      });
      return rows.map(toOutput);
    },
  }),

  defineTool({
    name: 'discounts.create',
    title: 'Create a discount code',
    description: 'Creates an active discount code: percent (value 1..100, rounded half-up to the øre) or fixed (value in øre). The code is case-insensitive and stored in upper case; taken codes give 409 conflict.',
    scope: 'discounts:write',
    input: DiscountsCreateInput,
    output: z.object({ id: z.string(), code: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async handler({ code, type, value, validUntil, usageLimit }, ctx) {
      if (type === 'percent' && value > 100) throw new AppError('invalid_request', 'value: a percent discount is 1..100.');
      const until = validUntil ? new Date(validUntil) : null;
      if (until && until <= new Date()) throw new AppError('invalid_request', 'validUntil: must be in the future.');
      const normalized = normalizeCode(code);
      if (await ctx.db.discountCode.findUnique({ where: { code: normalized }, select: { id: true } })) {
        throw new AppError('conflict', `The discount code "${normalized}" already exists.`);
      }
      const created = await ctx.db.discountCode.create({
        data: { code: normalized, type, value: BigInt(value), validUntil: until, usageLimit: usageLimit == null ? null : BigInt(usageLimit) },
      });
      ctx.audit({ entityType: 'discount', entityId: created.id, before: null, after: configSnapshot(created) });
      return { id: created.id, code: created.code };
    },
  }),

  defineTool({
    name: 'discounts.toggle',
    title: 'Switch a discount code on or off',
    description: 'Sets active to the given value, or flips it when active is omitted. The code is matched case-insensitively. Reversible with audit.revert.',
    scope: 'discounts:write',
    input: z.strictObject({ code: discountCodeRef(), active: z.boolean().optional() }),
    output: z.object({ code: z.string(), active: z.boolean() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async handler({ code, active }, ctx) {
      const normalized = normalizeCode(code);
      // Row lock so two concurrent flips apply one after the other instead of both writing the same value.
      const [locked] = await ctx.db.$queryRaw<{ id: string }[]>`SELECT id FROM "DiscountCode" WHERE code = ${normalized} FOR UPDATE`;
      if (!locked) throw new AppError('not_found', `No discount code "${normalized}".`);
      const before = await ctx.db.discountCode.findUniqueOrThrow({ where: { id: locked.id } });
      const after = await ctx.db.discountCode.update({ where: { id: locked.id }, data: { active: active ?? !before.active } });
      ctx.audit({ entityType: 'discount', entityId: after.id, before: configSnapshot(before), after: configSnapshot(after) });
      return { code: after.code, active: after.active };
    },
  }),
];
