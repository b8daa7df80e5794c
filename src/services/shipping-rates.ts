import { z } from 'zod';
import type { DbClient, Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import type { Snapshot } from '../domain/revert.ts';
import { AppError } from '../errors.ts';
import type { ShippingRate } from '../generated/prisma/client.ts';
import type { ReversibleEntity } from './reversible.ts';

// The shop's shipping rates, which decide the fulfillment options of checkout sessions (domain/shipping-options.ts;
// docs/agentic-checkout.md, "Fulfillment options" and "Shipping rate tools").

/** A rate as shipping.set_rate takes it: every field, so a call replaces the whole rate. */
export type RateInput = {
  id: string; title: string; serviceLevel: string; countryCode: string | null; priceDkk: number; freeFromDkk: number | null; freeForVariantIds: readonly string[];
};

/** By service level, then country (the rate for every country first), then id: the order an operator reads them in. */
export const listRates = (db: DbClient) =>
  db.shippingRate.findMany({ orderBy: [{ serviceLevel: 'asc' }, { countryCode: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }] });

const where = (countryCode: string | null) => (countryCode === null ? 'every country' : countryCode);

/** The given variant ids that name no live variant of a live product. */
async function unknownVariants(tx: Tx, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const live = await tx.productVariant.findMany({ where: { id: { in: [...ids] }, deletedAt: null, product: { deletedAt: null } }, select: { id: true } });
  const found = new Set(live.map((v) => v.id));
  return ids.filter((id) => !found.has(id));
}

/**
 * Creates the rate, or replaces every field of the rate with this id. Refused with 404 not_found when a variant of
 * freeForVariantIds does not exist (or is deleted), and with 409 conflict when another rate already serves the same
 * service level and country: replacing that rate silently would drop a rate the caller did not name.
 */
export async function setRate(tx: Tx, input: RateInput): Promise<{ before: ShippingRate | null; after: ShippingRate }> {
  const freeForVariantIds = [...new Set(input.freeForVariantIds)];
  const missing = await unknownVariants(tx, freeForVariantIds);
  if (missing.length > 0) {
    throw new AppError('not_found', `freeForVariantIds: no live variant ${missing.map((id) => `"${id}"`).join(', ')} (variants are listed by products.get).`);
  }
  // Row lock: the audit's `before` must be the state this call replaced.
  const [before = null] = await tx.$queryRaw<ShippingRate[]>`SELECT * FROM "ShippingRate" WHERE id = ${input.id} FOR UPDATE`;
  const clash = await tx.shippingRate.findFirst({
    where: { serviceLevel: input.serviceLevel, countryCode: input.countryCode, id: { not: input.id } },
    select: { id: true },
  });
  if (clash) {
    throw new AppError(
      'conflict',
      `Shipping rate "${clash.id}" already serves ${input.serviceLevel} for ${where(input.countryCode)}: replace it with shipping.set_rate and id "${clash.id}", or delete it first.`,
    );
  }
  // A concurrent call that passed the same check loses at the unique index (serviceLevel, countryCode) with 409 conflict.
  const after = await writeRate(tx, { ...input, freeForVariantIds });
  return { before, after };
}

function writeRate(tx: Tx, { id, priceDkk, freeFromDkk, freeForVariantIds, ...rest }: RateInput): Promise<ShippingRate> {
  const data = { ...rest, priceDkk: BigInt(priceDkk), freeFromDkk: freeFromDkk === null ? null : BigInt(freeFromDkk), freeForVariantIds: [...freeForVariantIds] };
  return tx.shippingRate.upsert({ where: { id }, create: { id, ...data }, update: data });
}

export async function deleteRate(tx: Tx, id: string): Promise<ShippingRate> {
  const [deleted] = await tx.$queryRaw<ShippingRate[]>`DELETE FROM "ShippingRate" WHERE id = ${id} RETURNING *`;
  if (!deleted) throw new AppError('not_found', `No shipping rate "${id}" (shipping.list_rates lists them).`);
  return deleted;
}

/** What a rate's audit snapshot holds besides its id and updatedAt (rateSnapshot: the row as plain JSON). */
const RateSnapshot = z.object({
  title: z.string(), serviceLevel: z.string(), countryCode: z.string().nullable(), priceDkk: z.number().int(), freeFromDkk: z.number().int().nullable(),
  freeForVariantIds: z.array(z.string()),
});

export const rateSnapshot = (row: ShippingRate): Snapshot => plainJson(row);

export const shippingRateEntity: ReversibleEntity = {
  entityType: 'shipping_rate',
  async load(tx, id) {
    const row = await tx.shippingRate.findUnique({ where: { id } });
    return row ? rateSnapshot(row) : null;
  },
  async restore(tx, id, snapshot) {
    if (snapshot === null) {
      await tx.shippingRate.deleteMany({ where: { id } });
      return;
    }
    // A rate made meanwhile for the same level and country makes this 409 conflict (the unique index).
    await writeRate(tx, { ...RateSnapshot.parse(snapshot), id });
  },
};
