import { queryRows, type DbClient, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import type { DiscountTerms } from '../domain/pricing.ts';
import { reviveSnapshot, type Snapshot } from '../domain/revert.ts';
import { AppError } from '../errors.ts';
import { Prisma, type DiscountCode, type DiscountType } from '../generated/prisma/client.ts';
import type { ReversibleEntity } from './reversible.ts';

/** Codes are case-insensitive: stored, compared and returned in upper case. */
export const normalizeCode = (code: string) => code.toUpperCase();

type Usability = Pick<DiscountCode, 'active' | 'validUntil' | 'usageLimit' | 'usageCount'>;

/** Why a code cannot be used right now, or null when it can. */
export function discountUnavailableReason(row: Usability | null, now: Date): string | null {
  if (!row) return 'does not exist';
  if (!row.active) return 'is inactive';
  if (row.validUntil !== null && row.validUntil <= now) return `has expired (valid until ${row.validUntil.toISOString()})`;
  if (row.usageLimit !== null && row.usageCount >= row.usageLimit) return `is used up (${row.usageLimit} use(s))`;
  return null;
}

export function discountTerms(row: Pick<DiscountCode, 'type'> & { value: bigint | number }): DiscountTerms {
  return { type: row.type, value: Number(row.value) };
}

/** The (normalized) code's row when it can be used now; 422 discount_unavailable otherwise. */
export function usableNow<T extends Usability>(row: T | null, normalized: string, now: Date): T {
  const reason = discountUnavailableReason(row, now);
  if (reason !== null || !row) throw new AppError('discount_unavailable', `Discount code "${normalized}" ${reason}.`);
  return row;
}

/** The code's row if it can be used now; 422 discount_unavailable otherwise. Reads only (cart previews). */
export async function usableDiscount(db: DbClient, code: string): Promise<DiscountCode> {
  const normalized = normalizeCode(code);
  return usableNow(await db.discountCode.findUnique({ where: { code: normalized } }), normalized, new Date());
}

/** Gives one use back (a cancelled order); never below zero. */
export async function releaseDiscount(tx: Tx, code: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE "DiscountCode" SET "usageCount" = "usageCount" - 1, "updatedAt" = now()
    WHERE code = ${normalizeCode(code)} AND "usageCount" > 0`;
}

export const listDiscounts = (db: DbClient, opts: { onlyActive?: boolean; limit: number }) =>
  db.discountCode.findMany({
    where: opts.onlyActive ? { active: true } : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: opts.limit,
  });

export type NewDiscount = { code: string; type: DiscountType; value: number; validUntil?: string | null; usageLimit?: number | null };

export async function createDiscount(tx: Tx, input: NewDiscount): Promise<DiscountCode> {
  const { code, type, value, validUntil, usageLimit } = input;
  if (type === 'percent' && value > 100) throw new AppError('value_out_of_range', 'value: a percent discount is 1..100.');
  const until = validUntil ? new Date(validUntil) : null;
  if (until && until <= new Date()) throw new AppError('date_not_in_future', 'validUntil: must be in the future.');
  const normalized = normalizeCode(code);
  const now = new Date();
  // One statement: a taken code inserts nothing (the unique index decides, also between concurrent creates).
  const [created] = await queryRows<DiscountCode>(tx, Prisma.sql`
    INSERT INTO "DiscountCode" (id, code, type, value, "validUntil", "usageLimit", "createdAt", "updatedAt")
    VALUES (${newId()}, ${normalized}, ${type}::"DiscountType", ${value}::bigint, ${until}, ${usageLimit ?? null}::bigint, ${now}, ${now})
    ON CONFLICT (code) DO NOTHING
    RETURNING id, code, type, value, "validUntil", "usageLimit", "usageCount", active, "createdAt", "updatedAt"`,
  { prepareAs: 'discount_create' });
  if (!created) throw new AppError('conflict', `The discount code "${normalized}" already exists.`);
  return created;
}

/** Sets `active`, or flips it when not given. */
export async function toggleDiscount(tx: Tx, code: string, active: boolean | undefined) {
  const normalized = normalizeCode(code);
  // Row lock so two concurrent flips apply one after the other instead of both writing the same value.
  const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "DiscountCode" WHERE code = ${normalized} FOR UPDATE`;
  if (!locked) throw new AppError('not_found', `No discount code "${normalized}".`);
  const before = await tx.discountCode.findUniqueOrThrow({ where: { id: locked.id } });
  const after = await tx.discountCode.update({ where: { id: locked.id }, data: { active: active ?? !before.active } });
  return { before, after };
}

/**
 * The audited state of a code: its terms, not its usage. usageCount moves with every checkout, and counting that as
 * "changed since" would make every toggle of a code in use unrevertable; a revert must never rewrite usage either.
 */
export function discountSnapshot(row: DiscountCode): Snapshot {
  const { usageCount: _usage, updatedAt: _updated, ...config } = row;
  return plainJson(config);
}

export const discountEntity: ReversibleEntity = {
  entityType: 'discount',
  async load(tx, id) {
    const row = await tx.discountCode.findUnique({ where: { id } });
    return row ? discountSnapshot(row) : null;
  },
  async restore(tx, id, before) {
    // Orders refer to codes by name, so a code is never deleted: "did not exist" restores as inactive.
    const data = before === null
      ? { active: false }
      : reviveSnapshot(before, { bigint: ['value', 'usageLimit'], date: ['validUntil', 'createdAt'], omit: ['id'] });
    await tx.discountCode.update({ where: { id }, data });
  },
};
