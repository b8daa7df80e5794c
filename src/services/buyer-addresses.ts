// The shop's address book (docs/agentic-checkout.md, reading 15): buyers' saved shipping addresses by e-mail. Who
// may see or add to it is the caller's concern (a UCP checkout of a key with customer:read); this file only keeps it:
// one entry per buyer and place, the same place found again by its normalized fields.
import { Prisma } from '../generated/prisma/client.ts';
import { queryRows, type DbClient, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import type { SessionAddress } from '../domain/checkout-session.ts';

export type BookEntry = { id: string; address: SessionAddress };

/** Buyers are told apart by e-mail as customers are: trimmed, case-insensitively (docs/commerce.md). */
export const bookEmail = (email: string) => email.trim().toLowerCase();

const PLACE_FIELDS = ['streetAddress', 'extendedAddress', 'locality', 'region', 'postalCode', 'country'] as const satisfies ReadonlyArray<keyof SessionAddress>;

/** The place an address names, whatever its case and spacing (names and phone are not part of it). */
export const fingerprintOf = (a: SessionAddress) => PLACE_FIELDS.map((f) => (a[f] ?? '').trim().replace(/\s+/g, ' ').toLowerCase()).join('\u001f');

const SESSION_ADDRESS_KEYS: ReadonlySet<string> = new Set(['firstName', 'lastName', 'phone', ...PLACE_FIELDS]);

/** A stored entry's address: its text fields of SessionAddress, nothing else. */
function addressOf(value: Prisma.JsonValue): SessionAddress {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([k, v]) => SESSION_ADDRESS_KEYS.has(k) && typeof v === 'string'));
}

/** The buyer's saved addresses, oldest first. */
export async function addressBook(db: DbClient, email: string): Promise<BookEntry[]> {
  const rows = await db.buyerAddress.findMany({ where: { email: bookEmail(email) }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map((r) => ({ id: r.id, address: addressOf(r.address) }));
}

/**
 * The buyer's entry for this place: the saved one, else a new one (`created`: the caller audits it). One statement,
 * so two checkouts saving the same place at once keep one entry.
 */
export async function rememberAddress(tx: Tx, email: string, address: SessionAddress): Promise<BookEntry & { created: boolean }> {
  const [owner, place] = [bookEmail(email), fingerprintOf(address)];
  const [row] = await queryRows<{ id: string; address: Prisma.JsonValue; created: boolean }>(tx, Prisma.sql`
    WITH added AS (
      INSERT INTO "BuyerAddress" (id, email, address, fingerprint)
      VALUES (${`addr_${newId()}`}, ${owner}, ${JSON.stringify(address)}::jsonb, ${place})
      ON CONFLICT (email, fingerprint) DO NOTHING
      RETURNING id, address)
    SELECT id, address, true AS created FROM added
    UNION ALL
    SELECT id, address, false FROM "BuyerAddress" WHERE email = ${owner} AND fingerprint = ${place} AND NOT EXISTS (SELECT 1 FROM added)`);
  if (!row) throw new Error('the address was neither saved nor found');
  return { id: row.id, address: addressOf(row.address), created: row.created };
}
