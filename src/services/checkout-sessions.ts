// The one checkout-session core of the agentic checkout protocols (docs/agentic-checkout.md). A protocol's binding
// (src/protocols/ucp/) translates its wire format to and from these calls; nothing here knows a protocol's field
// names. Prices are never stored on a session: every view prices it now with the code checkout.create_order uses.
import { queryRows, deferWrite, type Db, type DbClient, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import {
  ADDRESS_LABELS, ESCALATION_PATH, escalationIssue, expiryOf, isExpired, isFinal, missingAddressFields, openStatus, type PendingPayment,
  type SessionAddress, type SessionBuyer, type SessionFulfillment, type SessionIssue, type SessionLine, type SessionProtocol, type SessionStatus,
} from '../domain/checkout-session.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { priceOrderParts, type DiscountTerms, type PricingSettings } from '../domain/pricing.ts';
import { shippingOptions, type ShippingOption, type ShippingRateTerms } from '../domain/shipping-options.ts';
import { AppError } from '../errors.ts';
import { Prisma, type CheckoutSession, type ShopSettings } from '../generated/prisma/client.ts';
import { toJsonValue } from '../db/json-value.ts';
import { columnsOf } from '../db/sql-literal.ts';
import { bigintOrNull, checkoutDiscountOf, DISCOUNT_JSON, OPTION_NAMES, type AsJson, type CheckoutDiscount, type OrderLine } from './carts.ts';
import { placeOrderOf, type Buyer, type CheckoutSetup, type Contact, type OrderChannel } from './checkout.ts';
import { manualPaymentProvider, type PaymentProvider } from '../domain/payment.ts';
import { discountTerms, discountUnavailableReason, normalizeCode } from './discounts.ts';
import type { Change } from '../registry/define-tool.ts';
import { loadSettings, pricingSettings } from './settings.ts';

/** Who a session belongs to: the platform's API key (its name is recorded on the order as the agent's). */
export type SessionOwner = { keyId: string; agentName: string | null };

/** What a create or update sets; a field left out keeps its value (an update), `null` clears it. */
export type SessionChanges = {
  lines?: ReadonlyArray<{ id?: string; variantId: string; quantity: number }>;
  buyer?: SessionBuyer | null;
  fulfillment?: SessionFulfillment | null;
  discountCodes?: readonly string[];
  /** Protocol facts about the platform kept with the session (UCP: its profile and order webhook). */
  platform?: Readonly<Record<string, string | null>> | null;
};

/** The option a shop without shipping rates offers: its shipping at the fee and free-shipping threshold of its settings. */

export type SessionLineView = {
  id: string; variantId: string; quantity: number; title: string; sku: string | null; productSlug: string | null; imageUrl: string | null;
  /** Øre. 0 for a variant that does not exist. */
  unitPrice: number; lineTotal: number; available: boolean;
};

export type SessionView = {
  id: string;
  protocol: SessionProtocol;
  status: SessionStatus;
  currency: string;
  lines: SessionLineView[];
  buyer: SessionBuyer | null;
  fulfillment: SessionFulfillment & { options: ShippingOption[] };
  discounts: { codes: string[]; applied: Array<{ code: string; amount: number }> };
  /** Øre: tax is the VAT the total includes. */
  totals: { subtotal: number; discount: number; fulfillment: number; tax: number; total: number };
  issues: SessionIssue[];
  links: { terms: string; privacy: string };
  platform: Record<string, unknown> | null;
  /** The payment waiting for the buyer's authentication, while the session is in requires_escalation for it. */
  pendingPayment: PendingPayment | null;
  orderId: string | null;
  expiresAt: Date;
  createdAt: Date;
  expired: boolean;
};

/** A line's variant as a session's pricing reads it: what an order line needs of it, and its image. */
type SessionVariant = Omit<OrderLine, 'quantity'> & { image: string | null };

const asLines = (v: unknown): SessionLine[] => (Array.isArray(v) ? (v as SessionLine[]) : []);
const asObject = <T>(v: unknown): T | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as T) : null);

/** Where and how a session's goods go (for a completed one, with the chosen option's title), if it says. */
export const sessionFulfillment = (row: Pick<CheckoutSession, 'fulfillment'>): SessionFulfillment | null => asObject<SessionFulfillment>(row.fulfillment);

/** The audit snapshot of a session row. */
export const sessionSnapshot = (row: CheckoutSession) => plainJson(row);

/** Line ids are the session's own: kept when the platform names an existing line, drawn for new ones. */
function nextLines(current: readonly SessionLine[], input: NonNullable<SessionChanges['lines']>): SessionLine[] {
  const known = new Map(current.map((l) => [l.id, l]));
  const byVariant = new Map(current.map((l) => [l.variantId, l]));
  const taken = new Set<string>();
  return input.map((l) => {
    // A line named by id keeps it; otherwise a line of the same variant keeps its id, so platforms that resend the
    // list without ids see stable ids.
    const id = (l.id !== undefined && known.has(l.id) ? l.id : undefined) ?? (!l.id ? byVariant.get(l.variantId)?.id : undefined) ?? l.id ?? `li_${newId()}`;
    const unique = taken.has(id) ? `li_${newId()}` : id;
    taken.add(unique);
    return { id: unique, variantId: l.variantId, quantity: l.quantity };
  });
}

/**
 * A new session owned by the caller, expiring after the default TTL: the row as it will be stored. It is stored by
 * insertSession once its answer is rendered (the insert joins the write's final statement).
 */
export function newSession(owner: SessionOwner, protocol: SessionProtocol, changes: SessionChanges, now = new Date()): CheckoutSession {
  return {
    id: `${protocol === 'ucp' ? 'chk' : 'cs'}_${newId()}`, apiKeyId: owner.keyId, protocol, status: 'incomplete',
    lines: plainJson(nextLines([], changes.lines ?? [])), buyer: plainJson(changes.buyer ?? null), fulfillment: plainJson(changes.fulfillment ?? null),
    discountCodes: [...new Set((changes.discountCodes ?? []).map(normalizeCode))], platform: plainJson(changes.platform ?? null), pendingPayment: null, orderRecord: null,
    orderId: null, expiresAt: expiryOf(now), createdAt: now, updatedAt: now,
  };
}

/** A json column's value as a statement parameter (SQL NULL for null). */
const json = (v: unknown) => (v === null ? null : JSON.stringify(v));

/**
 * Stores a new session (newSession) in the write's final statement (deferWrite): a session is created on every
 * checkout a platform starts, and its insert costs no round trip of its own (docs/performance.md, "UCP sessions").
 * Nothing may be read after it in the same write.
 */
export async function insertSession(tx: Tx, row: CheckoutSession): Promise<void> {
  await deferWrite(tx, {
    name: 'create_checkout_session',
    ctes: Prisma.sql`created_session AS (
      INSERT INTO "CheckoutSession" (id, "apiKeyId", protocol, status, lines, buyer, fulfillment, "discountCodes", platform, "expiresAt", "createdAt", "updatedAt")
      VALUES (${row.id}, ${row.apiKeyId}, ${row.protocol}, ${row.status}, ${json(row.lines)}::jsonb, ${json(row.buyer)}::jsonb, ${json(row.fulfillment)}::jsonb,
              ${row.discountCodes}::text[], ${json(row.platform)}::jsonb, ${row.expiresAt}, ${row.createdAt}, ${row.updatedAt}))`,
  });
}

/** Whole session rows from prepared statements: the columns of this build (src/db/sql-literal.ts). */
const SESSION_COLUMNS = columnsOf(Prisma.CheckoutSessionScalarFieldEnum);
const SESSION_COLUMNS_OF_S = columnsOf(Prisma.CheckoutSessionScalarFieldEnum, 's');

/** The row, which must be the caller's session; another platform's is reported as missing, so session ids reveal nothing. */
function owned<T extends CheckoutSession>(row: T | undefined, owner: SessionOwner, id: string, protocol: SessionProtocol): T {
  if (!row || row.apiKeyId !== owner.keyId || row.protocol !== protocol) throw new AppError('not_found', `No checkout session with id "${id}".`);
  return row;
}

/** The caller's session. */
export async function findSession(db: DbClient, owner: SessionOwner, id: string, protocol: SessionProtocol): Promise<CheckoutSession> {
  // Every read of a session starts here: a prepared statement, not Prisma's per-call query path.
  const [row] = await queryRows<CheckoutSession>(db, Prisma.sql`SELECT ${SESSION_COLUMNS} FROM "CheckoutSession" WHERE id = ${id}`, { prepareAs: 'find_checkout_session' });
  return owned(row, owner, id, protocol);
}

/**
 * The caller's session with its pricing (viewSession's `read`), in one statement: what a completion checks before
 * it charges the buyer's token, outside any transaction.
 */
export async function findPriced(db: DbClient, owner: SessionOwner, id: string, protocol: SessionProtocol) {
  const [row] = await queryRows<CheckoutSession & { pricing: PricingJson }>(db, sessionPricedSql(id, false, NO_HINT), { prepareAs: 'find_checkout_session_priced' });
  const { pricing, ...session } = owned(row, owner, id, protocol);
  return { row: session, pricing: await pricingOf(db, pricing) };
}

/** The session, which must be the caller's and still accept changes (not completed, canceled or expired). */
function changeable<T extends CheckoutSession>(found: T | undefined, owner: SessionOwner, id: string, protocol: SessionProtocol, now: Date): T {
  const row = owned(found, owner, id, protocol);
  if (isFinal(row.status)) throw new AppError('checkout_session_closed', `Checkout session "${id}" is ${row.status} and cannot change.`);
  if (isExpired(row.expiresAt, now)) throw new AppError('checkout_session_closed', `Checkout session "${id}" expired at ${row.expiresAt.toISOString()}.`);
  return row;
}

/** The session locked for a change, which it must still accept. */
async function lockChangeable(tx: Tx, owner: SessionOwner, id: string, protocol: SessionProtocol, now: Date): Promise<CheckoutSession> {
  const [row] = await queryRows<CheckoutSession>(tx, Prisma.sql`SELECT ${SESSION_COLUMNS} FROM "CheckoutSession" WHERE id = ${id} FOR UPDATE`, { prepareAs: 'lock_checkout_session' });
  return changeable(row, owner, id, protocol, now);
}

/**
 * The session locked for a completion or a revision and priced, in one statement (a write's round trips are what a
 * session's speed is made of, docs/performance.md): its variants, codes and the shipping rates read from the locked
 * row itself, with `also` the variants and codes a revision's body brings.
 */
async function lockPriced(tx: Tx, owner: SessionOwner, id: string, protocol: SessionProtocol, now: Date, also: PricingHint = NO_HINT) {
  const [row] = await queryRows<CheckoutSession & { pricing: PricingJson }>(tx, sessionPricedSql(id, true, also), { prepareAs: 'lock_checkout_session_priced' });
  const { pricing, ...session } = changeable(row, owner, id, protocol, now);
  return { row: session, pricing: await pricingOf(tx, pricing) };
}

/** A session row with its pricing json: its variants, codes and the shipping rates read from the row itself, and `also`'s. */
const sessionPricedSql = (id: string, lock: boolean, also: PricingHint) => Prisma.sql`
    WITH s AS (SELECT ${SESSION_COLUMNS} FROM "CheckoutSession" WHERE id = ${id}${lock ? Prisma.sql` FOR UPDATE` : Prisma.empty})
    SELECT ${SESSION_COLUMNS_OF_S}, ${pricingJson(
      Prisma.sql`(SELECT x->>'variantId' FROM jsonb_array_elements(s.lines) x UNION SELECT unnest(${also.variantIds}::text[])) AS l(id)`,
      Prisma.sql`(SELECT unnest(s."discountCodes") UNION SELECT unnest(${also.codes}::text[])) AS c(code)`, Prisma.sql`true`,
    )} AS pricing
    FROM s`;

const NO_HINT: PricingHint = { variantIds: [], codes: [] };

/** Variants and codes to price. */
type PricingHint = { variantIds: readonly string[]; codes: readonly string[] };

/**
 * Applies an update: the session is locked and viewed as it stands (`revise` reads a protocol's body against it);
 * the lines, buyer, fulfillment, codes and platform facts the changes give replace the stored ones, and the session
 * is viewed again as it will be. The statement that locks the session prices both views when `brings` has the lines
 * and codes the body sets whatever the session holds (a second read only for what it did not name). The revised row
 * is stored by storeRevision, after the answer is rendered.
 */
export async function reviseSession(
  tx: Tx, owner: SessionOwner, id: string, protocol: SessionProtocol, baseUrl: string,
  revise: (current: SessionView) => SessionChanges | Promise<SessionChanges>, brings: Pick<SessionChanges, 'lines' | 'discountCodes'> = {}, now = new Date(),
) {
  const also = { variantIds: (brings.lines ?? []).map((l) => l.variantId), codes: (brings.discountCodes ?? []).map(normalizeCode) };
  const { row: before, pricing } = await lockPriced(tx, owner, id, protocol, now, also);
  const own = pricingNeeds(before);
  const read = { variantIds: [...own.variantIds, ...also.variantIds], codes: [...own.codes, ...also.codes] };
  const changes = await revise(await viewSession(tx, before, baseUrl, now, pricing));
  const after: CheckoutSession = {
    ...before,
    ...(changes.lines !== undefined ? { lines: plainJson(nextLines(asLines(before.lines), changes.lines)) } : {}),
    ...(changes.buyer !== undefined ? { buyer: plainJson(changes.buyer) } : {}),
    ...(changes.fulfillment !== undefined ? { fulfillment: plainJson(changes.fulfillment) } : {}),
    ...(changes.discountCodes !== undefined ? { discountCodes: [...new Set(changes.discountCodes.map(normalizeCode))] } : {}),
    ...(changes.platform !== undefined ? { platform: plainJson(changes.platform) } : {}),
    // Any change re-opens a session that was sent to the buyer for escalation: the platform tries again, and a
    // payment that waited for the buyer's authentication is left behind (it was for the session as it was).
    status: 'incomplete',
    pendingPayment: null,
    updatedAt: now,
  };
  const needed = pricingNeeds(after);
  const covered = needed.variantIds.every((v) => read.variantIds.includes(v)) && needed.codes.every((c) => read.codes.includes(c));
  const view = await viewSession(tx, after, baseUrl, now, covered ? pricing : await readPricing(tx, needed.variantIds, needed.codes, needed.quoted));
  return { before, after, view };
}

/**
 * Stores a revised session (reviseSession): `last`, in the write's final statement (deferWrite: nothing may be read
 * after it), or `now`, when the write goes on with the session (ACP's completion that brings the buyer).
 */
export async function storeRevision(tx: Tx, row: CheckoutSession, when: 'last' | 'now'): Promise<void> {
  const update = Prisma.sql`UPDATE "CheckoutSession"
      SET lines = ${json(row.lines)}::jsonb, buyer = ${json(row.buyer)}::jsonb, fulfillment = ${json(row.fulfillment)}::jsonb, "discountCodes" = ${row.discountCodes}::text[],
          platform = ${json(row.platform)}::jsonb, status = ${row.status}, "pendingPayment" = NULL, "updatedAt" = ${row.updatedAt}
      WHERE id = ${row.id}`;
  if (when === 'now') await queryRows(tx, update, { prepareAs: 'revise_checkout_session' });
  else await deferWrite(tx, { name: 'revise_checkout_session', ctes: Prisma.sql`revised_session AS (${update})` });
}

/**
 * Gives a session without the buyer's e-mail the one the buyer typed on the storefront's payment page (UCP lets the
 * platform leave it out); a session that has one keeps it. Null when nothing changed.
 */
export async function addBuyerEmail(tx: Tx, owner: SessionOwner, id: string, protocol: SessionProtocol, email: string, now = new Date()) {
  const before = await lockChangeable(tx, owner, id, protocol, now);
  const buyer = asObject<SessionBuyer>(before.buyer) ?? {};
  if (buyer.email) return null;
  const after = await tx.checkoutSession.update({ where: { id }, data: { buyer: toJsonValue({ ...buyer, email }), updatedAt: now } });
  return { before, after };
}

/** Cancels an open session; a completed one stays completed (422 checkout_session_closed). */
export async function cancelSession(tx: Tx, owner: SessionOwner, id: string, protocol: SessionProtocol, now = new Date()) {
  const before = await lockChangeable(tx, owner, id, protocol, now);
  const after = await tx.checkoutSession.update({ where: { id }, data: { status: 'canceled', updatedAt: now } });
  return { before, after };
}

/**
 * Why a session cannot be completed as it stands (its first stock problem, or everything it lacks), if anything. The
 * escalation's own message is not such a gap: it says the buyer is to pay, which a completion does. `supplied` says
 * which gaps the completing request itself fills (ACP's complete may carry the buyer).
 */
export function notReady(view: SessionView, supplied: (issue: SessionIssue) => boolean = () => false): AppError | null {
  const blocking = view.issues.filter((i) => i.type === 'error' && i.path !== ESCALATION_PATH && !supplied(i));
  if (blocking.length === 0) return null;
  const stock = blocking.find((i) => i.code === 'out_of_stock' || i.code === 'item_unavailable');
  if (stock) return new AppError('out_of_stock', stock.content);
  // One sentence first for what platforms most often leave out (UCP's reference merchant words it so), then each gap.
  const fulfillment = blocking.some((i) => i.path.startsWith('fulfillment.')) ? 'Fulfillment address and option must be selected. ' : '';
  return new AppError('checkout_session_incomplete', fulfillment + blocking.map((i) => `${i.path}: ${i.content}`).join(' '));
}

/**
 * Why the buyer cannot pay a session on the storefront's payment page, if anything: what keeps any completion, and a
 * missing e-mail address. UCP lets a platform leave the buyer's e-mail out (its webhook reaches the buyer), but a
 * buyer paying the shop directly gets the order's confirmation and, paid manually, the payment details by e-mail.
 */
export function notPayableByBuyer(view: SessionView): AppError | null {
  return notReady(view) ?? (view.buyer?.email
    ? null
    : new AppError('checkout_session_incomplete', 'buyer.email: The buyer’s e-mail address is needed to send the order and its payment details.'));
}

/**
 * Marks a ready session as needing the buyer: on the merchant's own page (no payment handler could take the
 * payment), or at the bank for the authentication of `pending`; a session that is not ready answers as a completion
 * would.
 */
export async function escalateSession(
  tx: Tx, owner: SessionOwner, id: string, protocol: SessionProtocol, baseUrl: string, now = new Date(), pending: PendingPayment | null = null,
) {
  const before = await lockChangeable(tx, owner, id, protocol, now);
  const problem = notReady(await viewSession(tx, before, baseUrl, now));
  if (problem) throw problem;
  const after = await tx.checkoutSession.update({ where: { id }, data: { status: 'requires_escalation', pendingPayment: toJsonValue(pending), updatedAt: now } });
  return { before, after };
}

/** What a session's view needs of the shop's settings. */
type SessionSettings = Pick<ShopSettings, 'currency' | 'termsUrl' | 'privacyUrl' | 'shippingFeeDkk' | 'freeShippingThresholdDkk' | 'vatRateBasisPoints'>;

/** Everything a session is priced from: the shop's settings, its lines' variants, the shipping rates (once quoted), its codes' rows. */
export type SessionPricing = { settings: SessionSettings; variants: SessionVariant[]; rates: ShippingRateTerms[]; codes: CheckoutDiscount[] };
type PricingJson = {
  settings: AsJson<SessionSettings> | null; variants: AsJson<SessionVariant>[]; rates: AsJson<ShippingRateTerms>[]; codes: AsJson<CheckoutDiscount>[];
};

/**
 * The pricing of a session as one json value (bigints as text): `variants` names the variant ids (a relation
 * `l(id)`), `codes` the codes (`c(code)`), `quoted` whether the shipping rates are read. Each variant, product and
 * code is looked up by key, one by one (OFFSET 0 keeps the planner from turning the look-ups into hash joins over
 * whole tables, as it did for carts: docs/performance.md, "Writes" item 22).
 */
const pricingJson = (variants: Prisma.Sql, codes: Prisma.Sql, quoted: Prisma.Sql) => Prisma.sql`json_build_object(
  'settings', (SELECT json_build_object('currency', currency, 'termsUrl', "termsUrl", 'privacyUrl', "privacyUrl", 'shippingFeeDkk', "shippingFeeDkk"::text,
                                        'freeShippingThresholdDkk', "freeShippingThresholdDkk"::text, 'vatRateBasisPoints', "vatRateBasisPoints")
               FROM "ShopSettings" WHERE id = 1),
  'variants', (SELECT coalesce(json_agg(json_build_object('variantId', v.id, 'productId', v."productId", 'sku', v.sku, 'name', p.name, 'slug', p.slug,
                                        'optionValues', v."optionValues", 'optionNames', ${OPTION_NAMES}, 'priceDkk', v."priceDkk"::text, 'stock', v.stock::text,
                                        'trackStock', v."trackStock", 'allowBackorder', v."allowBackorder", 'deletedAt', coalesce(v."deletedAt", p."deletedAt"),
                                        'image', coalesce(v.images[1], p.images[1]))), '[]')
               FROM ${variants}
               CROSS JOIN LATERAL (SELECT * FROM "ProductVariant" v WHERE v.id = l.id OFFSET 0) v
               CROSS JOIN LATERAL (SELECT * FROM "Product" p WHERE p.id = v."productId" OFFSET 0) p),
  'rates', CASE WHEN ${quoted} THEN (
             SELECT coalesce(json_agg(json_build_object('id', id, 'title', title, 'serviceLevel', "serviceLevel", 'countryCode', "countryCode",
                                      'priceDkk', "priceDkk"::text, 'freeFromDkk', "freeFromDkk"::text, 'freeForVariantIds', "freeForVariantIds")), '[]')
             FROM "ShippingRate") ELSE '[]'::json END,
  'codes', (SELECT coalesce(json_agg(${DISCOUNT_JSON}), '[]') FROM ${codes} CROSS JOIN LATERAL (SELECT * FROM "DiscountCode" d WHERE d.code = c.code OFFSET 0) d))`;

async function pricingOf(db: DbClient, json: PricingJson): Promise<SessionPricing> {
  // A shop that has never saved its settings: loadSettings makes the row with its defaults, once.
  const settings = json.settings === null ? await loadSettings(db) : {
    ...json.settings, shippingFeeDkk: BigInt(json.settings.shippingFeeDkk), freeShippingThresholdDkk: bigintOrNull(json.settings.freeShippingThresholdDkk),
  };
  return {
    settings,
    variants: json.variants.map((v) => ({ ...v, priceDkk: BigInt(v.priceDkk), stock: BigInt(v.stock), deletedAt: v.deletedAt === null ? null : new Date(v.deletedAt) })),
    rates: json.rates.map((r) => ({ ...r, priceDkk: BigInt(r.priceDkk), freeFromDkk: bigintOrNull(r.freeFromDkk) })),
    codes: json.codes.map(checkoutDiscountOf),
  };
}

/** A session's pricing read on its own (every read of a session, and the answer of every write but a completion). */
async function readPricing(db: DbClient, variantIds: readonly string[], codes: readonly string[], quoted: boolean): Promise<SessionPricing> {
  const [row] = await queryRows<{ pricing: PricingJson }>(db, Prisma.sql`
    SELECT ${pricingJson(Prisma.sql`unnest(${[...new Set(variantIds)]}::text[]) AS l(id)`, Prisma.sql`unnest(${codes}::text[]) AS c(code)`, Prisma.sql`${quoted}::boolean`)} AS pricing`,
  { prepareAs: 'session_pricing' });
  if (!row) throw new Error('the session pricing read returned no row');
  return pricingOf(db, row.pricing);
}

/**
 * What a session's view reads: its lines' variants, its codes, and the shipping rates once its destination's country
 * is known (the full address is needed only to complete), the only time options are quoted.
 */
function pricingNeeds(row: Pick<CheckoutSession, 'lines' | 'fulfillment' | 'discountCodes'>): PricingHint & { quoted: boolean } {
  const lines = asLines(row.lines);
  const country = asObject<SessionFulfillment>(row.fulfillment)?.address?.country?.trim();
  return { variantIds: lines.map((l) => l.variantId), codes: row.discountCodes, quoted: Boolean(country) && lines.length > 0 };
}

const isHttpUrl = (s: string | null) => s !== null && /^https?:\/\//.test(s);

/**
 * Whether a protocol's session needs the buyer's e-mail before completion. UCP names no buyer field a business must
 * have (its reference merchant completes without one): the platform is the buyer's channel, and the order's events
 * reach the buyer through its webhook, so an order from UCP may have no e-mail (and then gets none).
 */
const BUYER_EMAIL_REQUIRED: Record<SessionProtocol, boolean> = { ucp: false, acp: true };

/**
 * Whether a session with a destination and no chosen option ships with the cheapest option offered. ACP answers carry
 * the selected option and its agents change it when the buyer wants another; a UCP platform chooses one itself (the
 * conformance suite selects by id and expects none chosen before).
 */
const OPTION_PRESELECTED: Record<SessionProtocol, boolean> = { ucp: false, acp: true };

/** The pricing of an order shipped with an option: the option's amount is the fee, already free or not. */
const shippingAt = (pricing: PricingSettings, option: ShippingOption): PricingSettings => ({ ...pricing, shippingFeeDkk: option.amount, freeShippingThresholdDkk: null });

/**
 * The session as it stands now: its lines priced at today's prices, its codes tried in order (a code that cannot be
 * used is reported and left out), the shipping option offered once the address is complete, the totals from
 * priceOrder, and everything that keeps it from completion as issues.
 */
export async function viewSession(db: DbClient, row: CheckoutSession, baseUrl: string, now = new Date(), read?: SessionPricing): Promise<SessionView> {
  const stored = asLines(row.lines);
  const fulfillment = asObject<SessionFulfillment>(row.fulfillment) ?? { destinationId: null, address: null, optionId: null };
  const country = fulfillment.address?.country?.trim();
  const { quoted } = pricingNeeds(row);
  const { settings, variants, rates, codes } = read ?? await readPricing(db, stored.map((l) => l.variantId), row.discountCodes, quoted);
  const byId = new Map(variants.map((v) => [v.variantId, v]));
  const issues: SessionIssue[] = [];
  const lines: SessionLineView[] = stored.map((l, i) => {
    const v = byId.get(l.variantId);
    if (!v) {
      issues.push({ type: 'error', code: 'item_unavailable', path: `lines[${i}]`, content: `Item "${l.variantId}" does not exist.`, severity: 'unrecoverable' });
      return { ...l, title: l.variantId, sku: null, productSlug: null, imageUrl: null, unitPrice: 0, lineTotal: 0, available: false };
    }
    const available = v.deletedAt === null && (v.stock >= BigInt(l.quantity) || !v.trackStock || v.allowBackorder);
    if (v.deletedAt !== null) issues.push({ type: 'error', code: 'item_unavailable', path: `lines[${i}]`, content: `"${v.name}" is no longer sold.`, severity: 'unrecoverable' });
    else if (!available) issues.push({ type: 'error', code: 'out_of_stock', path: `lines[${i}]`, content: `"${v.name}": ${l.quantity} requested, ${v.stock} in stock.`, severity: 'recoverable' });
    const title = v.optionValues.length > 0 ? `${v.name} (${v.optionValues.join(' / ')})` : v.name;
    const unitPrice = Number(v.priceDkk);
    return {
      ...l, title, sku: v.sku, productSlug: v.slug, imageUrl: isHttpUrl(v.image) ? v.image : null, unitPrice, lineTotal: unitPrice * l.quantity, available,
    };
  });
  if (lines.length === 0) issues.push({ type: 'error', code: 'missing', path: 'lines', content: 'The checkout has no line items.', severity: 'recoverable' });

  const usable: Array<{ code: string; terms: DiscountTerms }> = [];
  row.discountCodes.forEach((code, i) => {
    const found = codes.find((c) => c.code === code) ?? null;
    const reason = discountUnavailableReason(found, now);
    if (reason !== null || !found) issues.push({ type: 'warning', code: 'discount_code_invalid', path: `discounts.codes[${i}]`, content: `Discount code "${code}" ${reason}.`, severity: 'recoverable' });
    else usable.push({ code, terms: discountTerms(found) });
  });

  const buyer = asObject<SessionBuyer>(row.buyer);
  if (!buyer?.email && BUYER_EMAIL_REQUIRED[row.protocol as SessionProtocol]) issues.push({ type: 'error', code: 'missing', path: 'buyer.email', content: 'The buyer’s e-mail address is needed.', severity: 'requires_buyer_input' });

  const missing = missingAddressFields(fulfillment.address);
  const pricing = pricingSettings(settings);
  const priced = stored.map((l, i) => ({ unitPriceDkk: lines[i].unitPrice, quantity: l.quantity }));
  const terms = usable.map((u) => u.terms);
  // The goods without shipping: what the options are quoted on, and the totals until an option is chosen (nothing
  // has been chosen to pay for yet).
  const goodsOnly = priceOrderParts(priced, terms, { ...pricing, shippingFeeDkk: 0 });
  const options = quoted && country
    ? shippingOptions(rates, pricing, { country, goodsDkk: goodsOnly.money.subtotalDkk - goodsOnly.money.discountDkk, variantIds: stored.map((l) => l.variantId) })
    : [];
  const option = fulfillment.optionId === null
    ? (OPTION_PRESELECTED[row.protocol as SessionProtocol] ? options[0] : undefined)
    : options.find((o) => o.id === fulfillment.optionId);
  if (missing.length > 0) {
    issues.push({ type: 'error', code: 'missing', path: 'fulfillment.address', content: `The shipping address lacks ${missing.map((f) => ADDRESS_LABELS[f]).join(', ')}.`, severity: 'requires_buyer_input' });
  } else if (!option) {
    issues.push({ type: 'error', code: 'missing', path: 'fulfillment.option', content: `Choose a fulfillment option (${options.map((o) => o.id).join(', ')}).`, severity: 'requires_buyer_input' });
  }
  // The chosen option's amount is the order's shipping: priceOrder adds it as the fee, already free or not.
  const { money, discountParts } = option ? priceOrderParts(priced, terms, shippingAt(pricing, option)) : goodsOnly;

  const expired = !isFinal(row.status) && isExpired(row.expiresAt, now);
  if (expired) issues.push({ type: 'error', code: 'expired', path: '', content: `The checkout expired at ${row.expiresAt.toISOString()}.`, severity: 'unrecoverable' });
  const status: SessionStatus = isFinal(row.status) ? (row.status as SessionStatus) : expired ? 'canceled' : openStatus(issues, row.status);
  const pendingPayment = status === 'requires_escalation' ? asObject<PendingPayment>(row.pendingPayment) : null;
  if (status === 'requires_escalation') issues.push(escalationIssue(pendingPayment));
  return {
    id: row.id,
    protocol: row.protocol as SessionProtocol,
    status,
    currency: settings.currency,
    lines,
    buyer,
    fulfillment: { ...fulfillment, optionId: option ? option.id : null, options },
    discounts: { codes: [...row.discountCodes], applied: usable.map((u, i) => ({ code: u.code, amount: discountParts[i] })).filter((a) => a.amount > 0) },
    totals: { subtotal: money.subtotalDkk, discount: money.discountDkk, fulfillment: money.shippingDkk, tax: money.vatOere, total: money.totalDkk },
    issues: isFinal(row.status) ? [] : issues,
    links: { terms: settings.termsUrl ?? `${baseUrl}/pages/terms`, privacy: settings.privacyUrl ?? `${baseUrl}/pages/privacy` },
    platform: asObject<Record<string, unknown>>(row.platform),
    pendingPayment,
    orderId: row.orderId,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    expired,
  };
}

const joined = (...parts: Array<string | undefined>) => parts.filter((p) => p && p.trim()).join(' ');

/** The order's contact fields from the session's buyer and address (the order keeps the country with the city). */
function contactOf(buyer: SessionBuyer, address: SessionAddress): Contact {
  const name = joined(address.firstName, address.lastName) || joined(buyer.firstName, buyer.lastName) || (buyer.email ?? '');
  return {
    email: buyer.email ?? '',
    shippingName: name,
    shippingAddress: [address.streetAddress, address.extendedAddress].filter(Boolean).join(', '),
    shippingZip: address.postalCode ?? '',
    shippingCity: [address.locality, address.region, address.country].filter(Boolean).join(', '),
    ...(buyer.phone || address.phone ? { phoneNumber: buyer.phone ?? address.phone } : {}),
  };
}

/**
 * A protocol's order is paid through the protocol's payment handler, not by the shop's provider; its buyer's
 * confirmation follows that payment (changeOrderStatus to paid), so the checkout writes none.
 */
const PROTOCOL_CHECKOUT: CheckoutSetup = { payments: manualPaymentProvider, email: undefined };

/** The order's lines of a session: one per variant (a variant named on two lines is ordered once, both quantities), in product-id order. */
function orderLines(lines: readonly SessionLine[], variants: readonly SessionVariant[]): OrderLine[] {
  const quantities = new Map<string, bigint>();
  for (const l of lines) quantities.set(l.variantId, (quantities.get(l.variantId) ?? 0n) + BigInt(l.quantity));
  return variants
    .filter((v) => quantities.has(v.variantId))
    .map(({ image: _image, ...v }) => ({ ...v, quantity: quantities.get(v.variantId) ?? 0n }))
    .sort((a, b) => (a.productId === b.productId ? (a.variantId < b.variantId ? -1 : 1) : a.productId < b.productId ? -1 : 1));
}

/**
 * Completes a ready session: the session is locked and priced in one statement, and the order placed by
 * placeOrderOf, the same decision and final statement as checkout.create_order (stock taken never below zero, the
 * codes counted, the order priced by priceOrder), from the session's lines; the session records the order in that
 * statement, which fails (and the write runs again) unless every line and code it read was taken. The caller has
 * taken the payment decision before (a declined payment must change nothing). 422 checkout_session_incomplete names
 * what is missing; out_of_stock and discount_unavailable come from placeOrderOf unchanged.
 *
 * `payments` says what the order records of a payment the protocol already took (ACP: the Stripe PaymentIntent of
 * the agent's SharedPaymentToken); left out, the order records none. `email`, given when the buyer completes on the
 * storefront, sends the order's confirmation at once (with how to pay), as a storefront checkout does.
 */
export async function completeSession(
  tx: Tx, owner: SessionOwner, id: string, protocol: SessionProtocol, baseUrl: string, now = new Date(), payments: PaymentProvider = manualPaymentProvider,
  email: CheckoutSetup['email'] = PROTOCOL_CHECKOUT.email,
) {
  const { row: before, pricing } = await lockPriced(tx, owner, id, protocol, now);
  const view = await viewSession(tx, before, baseUrl, now, pricing);
  const problem = notReady(view);
  if (problem) throw problem;
  const channel: OrderChannel = protocol;
  const buyer: Buyer = { keyId: owner.keyId, agentName: owner.agentName, channel, sessionId: id };
  const option = view.fulfillment.options.find((o) => o.id === view.fulfillment.optionId);
  // The order keeps what the buyer chose to ship with, as it was titled then (the order's delivery description).
  const kept: SessionFulfillment = { destinationId: view.fulfillment.destinationId, address: view.fulfillment.address, optionId: view.fulfillment.optionId, ...(option ? { optionTitle: option.title } : {}) };
  const codes = view.discounts.applied.map((a) => a.code);
  const placed = await placeOrderOf(
    tx, buyer, { terms: { currency: pricing.settings.currency, pricing: pricingSettings(pricing.settings) }, lines: orderLines(asLines(before.lines), pricing.variants), discounts: pricing.codes },
    codes, contactOf(view.buyer ?? {}, view.fulfillment.address ?? {}), { payments, email, shippingDkk: option?.amount }, now,
    {
      name: 'place_session_order',
      lines: Prisma.sql`SELECT "productId", "variantId", quantity FROM expected`,
      close: (orderId, _codes, holds) => Prisma.sql`completed_session AS (
        UPDATE "CheckoutSession" SET status = 'completed', "orderId" = ${orderId}, fulfillment = ${JSON.stringify(kept)}::jsonb, "updatedAt" = ${now}
        WHERE id = ${id} AND agent_api_expect(${holds}, 'the checkout session''s products or discount codes'))`,
    },
  );
  const after: CheckoutSession = { ...before, status: 'completed', orderId: placed.order.id, fulfillment: plainJson(kept), updatedAt: now };
  // The view as the session will read once this commits (nothing may be read after the deferred write).
  const completed: SessionView = { ...view, status: 'completed', issues: [], orderId: placed.order.id };
  return { before, after, placed, view: completed };
}

/**
 * The audit entries of the order a completion placed: the order as placed, with the session it came from, the stock
 * it took and `payment` (what paid it, as the protocol names it); and, when the payment was taken before (an agent's
 * token), its move to paid as the next write of the order (step 1: its order.status_changed follows order.created),
 * committed with it. Subscribers see what they see for every payment: the order created, then paid.
 */
export function completedOrderEntries(sessionId: string, placed: Awaited<ReturnType<typeof completeSession>>['placed'], payment?: Record<string, string>): Change[] {
  const created: Change = {
    entityType: 'order', entityId: placed.order.id, before: null, after: placed.orderSnapshot,
    meta: {
      checkoutSessionId: sessionId, stockTaken: placed.taken.map((t) => ({ productId: t.productId, variantId: t.variantId, quantity: t.quantity })),
      ...(payment ? { payment } : {}),
    },
  };
  if (!placed.paidSnapshot) return [created];
  return [created, { entityType: 'order', entityId: placed.order.id, before: placed.orderSnapshot, after: placed.paidSnapshot, step: 1 }];
}

/**
 * Cancels every open session past its expiry, with an audit entry each (tool `checkout_sessions.sweep`); run by the
 * housekeeping timer of every instance. Returns how many it closed.
 */
export async function sweepExpiredSessions(tx: Tx, now = new Date()): Promise<number> {
  const closed = await queryRows<{ id: string; before: unknown; after: unknown }>(tx, Prisma.sql`
    WITH due AS (
      SELECT * FROM "CheckoutSession" WHERE "expiresAt" <= ${now} AND status NOT IN ('completed', 'canceled') ORDER BY "expiresAt" LIMIT 1000 FOR UPDATE SKIP LOCKED
    ), closed AS (
      UPDATE "CheckoutSession" s SET status = 'canceled', "updatedAt" = ${now} FROM due WHERE s.id = due.id RETURNING s.*
    ), audited AS (
      INSERT INTO "AuditEntry" (id, at, "apiKeyId", tool, "entityType", "entityId", before, after, meta)
      SELECT 'c' || replace(gen_random_uuid()::text, '-', ''), ${now}, due."apiKeyId", 'checkout_sessions.sweep', 'checkout_session', due.id,
             to_jsonb(due), to_jsonb(closed), '{"reason":"expired"}'::jsonb
      FROM due JOIN closed ON closed.id = due.id
    )
    SELECT id, NULL AS before, NULL AS after FROM closed`);
  return closed.length;
}

/** Sweeps expired sessions every few minutes on every instance (SKIP LOCKED: instances never close the same one twice). */
export function startSessionSweep(deps: { db: Db; log: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void } }): { stop: () => void } {
  const run = () => {
    deps.db.$transaction((tx) => sweepExpiredSessions(tx))
      .then((closed) => {
        if (closed > 0) deps.log.info({ closed }, 'closed expired checkout sessions');
      })
      .catch((err: unknown) => deps.log.warn({ err }, 'checkout session sweep failed; it runs again later'));
  };
  const every = setInterval(run, 5 * 60_000);
  every.unref();
  return { stop: () => clearInterval(every) };
}
