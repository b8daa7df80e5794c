// UCP 2026-04-08's wire format for checkout sessions and orders (docs/agentic-checkout.md): requests parsed into
// the checkout-session core's changes, and the core's views rendered as the protocol's checkout, order and error
// objects. Field names and shapes follow the protocol's JSON schemas; unknown request fields are accepted and
// ignored, as the schemas allow (additionalProperties).
import { z } from 'zod';
import type { SessionAddress, SessionBuyer, SessionConsent, SessionFulfillment, SessionIssue } from '../../domain/checkout-session.ts';
import type { BookEntry } from '../../services/buyer-addresses.ts';
import type { SessionChanges, SessionView } from '../../services/checkout-sessions.ts';

export const UCP_VERSION = '2026-04-08';
const SPEC = 'https://ucp.dev/2026-04-08/specification';
const SCHEMAS = 'https://ucp.dev/2026-04-08/schemas';

/** The capabilities this service implements, as responses and the profile name them. */
export const CAPABILITIES = {
  'dev.ucp.shopping.checkout': [{ version: UCP_VERSION, spec: `${SPEC}/checkout`, schema: `${SCHEMAS}/shopping/checkout.json` }],
  'dev.ucp.shopping.fulfillment': [{ version: UCP_VERSION, spec: `${SPEC}/fulfillment`, schema: `${SCHEMAS}/shopping/fulfillment.json`, extends: 'dev.ucp.shopping.checkout' }],
  'dev.ucp.shopping.discount': [{ version: UCP_VERSION, spec: `${SPEC}/discount`, schema: `${SCHEMAS}/shopping/discount.json`, extends: 'dev.ucp.shopping.checkout' }],
  'dev.ucp.shopping.buyer_consent': [{ version: UCP_VERSION, spec: `${SPEC}/buyer-consent`, schema: `${SCHEMAS}/shopping/buyer_consent.json`, extends: 'dev.ucp.shopping.checkout' }],
  'dev.ucp.shopping.order': [{ version: UCP_VERSION, spec: `${SPEC}/order`, schema: `${SCHEMAS}/shopping/order.json` }],
} as const;

// ---- Requests -------------------------------------------------------------------------------------------------

const text = (max: number) => z.string().max(max);

const PostalAddress = z.looseObject({
  street_address: text(500).optional(),
  extended_address: text(500).optional(),
  address_locality: text(200).optional(),
  address_region: text(200).optional(),
  address_country: text(100).optional(),
  postal_code: text(20).optional(),
  first_name: text(200).optional(),
  last_name: text(200).optional(),
  phone_number: text(40).optional(),
  // Not the schema's names: a tolerant reader takes them when address_locality / address_region are absent
  // (docs/agentic-checkout.md, "Readings").
  locality: text(200).optional(),
  region: text(200).optional(),
});

const Destination = PostalAddress.extend({ id: text(200).optional() });

const Method = z.looseObject({
  id: text(200).optional(),
  type: z.enum(['shipping', 'pickup']).optional(),
  destinations: z.array(Destination).max(20).optional(),
  selected_destination_id: text(200).nullable().optional(),
  groups: z.array(z.looseObject({ id: text(200).optional(), selected_option_id: text(200).nullable().optional() })).max(20).optional(),
});

const LineItem = z.looseObject({
  id: text(200).optional(),
  item: z.looseObject({ id: text(200).min(1) }),
  quantity: z.number().int().min(1).max(1_000_000),
});

const Consent = z.looseObject({
  analytics: z.boolean().optional(),
  preferences: z.boolean().optional(),
  marketing: z.boolean().optional(),
  sale_of_data: z.boolean().optional(),
});

const Buyer = z.looseObject({
  email: z.email().max(320).optional(),
  first_name: text(200).optional(),
  last_name: text(200).optional(),
  phone_number: text(40).optional(),
  consent: Consent.optional(),
});

/** A create or update body: the checkout's line items (required), buyer, fulfillment and discount codes. */
export const CheckoutRequest = z.looseObject({
  line_items: z.array(LineItem).min(1).max(100),
  buyer: Buyer.nullable().optional(),
  fulfillment: z.looseObject({ methods: z.array(Method).max(5).optional() }).nullable().optional(),
  discounts: z.looseObject({ codes: z.array(text(64).min(1)).max(10).optional() }).nullable().optional(),
  payment: z.looseObject({}).nullable().optional(),
});
export type CheckoutRequest = z.infer<typeof CheckoutRequest>;

const Credential = z.looseObject({ type: text(100), token: text(2000).optional() });
const Instrument = z.looseObject({
  id: text(200),
  handler_id: text(200),
  type: text(100),
  credential: Credential.optional(),
  billing_address: PostalAddress.optional(),
  selected: z.boolean().optional(),
});

/**
 * A complete body. The protocol's shape is `payment.instruments` (the selected one, or the only one, pays); the
 * `payment_data` form of earlier revisions is read too, since platforms in the field still send it.
 */
export const CompleteRequest = z.looseObject({
  payment: z.looseObject({ instruments: z.array(Instrument).min(1).max(10) }).optional(),
  payment_data: Instrument.optional(),
});
export type CompleteRequest = z.infer<typeof CompleteRequest>;
export type PaymentInstrument = z.infer<typeof Instrument>;

/** The instrument a completion pays with, or null when none was given. */
export function chosenInstrument(body: CompleteRequest): PaymentInstrument | null {
  const list = body.payment?.instruments ?? [];
  return list.find((i) => i.selected) ?? list[0] ?? body.payment_data ?? null;
}

/** The protocol's postal address fields and the session's names for them. */
const ADDRESS_FIELDS = [
  ['firstName', 'first_name'], ['lastName', 'last_name'], ['streetAddress', 'street_address'], ['extendedAddress', 'extended_address'],
  ['locality', 'address_locality'], ['region', 'address_region'], ['postalCode', 'postal_code'], ['country', 'address_country'], ['phone', 'phone_number'],
] as const satisfies ReadonlyArray<readonly [keyof SessionAddress, keyof z.infer<typeof PostalAddress>]>;

const addressOf = (a: z.infer<typeof PostalAddress>): SessionAddress =>
  Object.fromEntries(ADDRESS_FIELDS.flatMap(([ours, theirs]) => {
    const value = a[theirs] || (theirs === 'address_locality' ? a.locality : theirs === 'address_region' ? a.region : undefined);
    return value ? [[ours, value]] : [];
  }));

const addressOut = (a: SessionAddress): Record<string, string> =>
  Object.fromEntries(ADDRESS_FIELDS.flatMap(([ours, theirs]) => (a[ours] ? [[theirs, a[ours]]] : [])));

type ShippingMethod = NonNullable<NonNullable<CheckoutRequest['fulfillment']>['methods']>[number];

const shippingMethod = (f: NonNullable<CheckoutRequest['fulfillment']>) => f.methods?.find((m) => (m.type ?? 'shipping') === 'shipping');

/** The destination id a shipping method selects (or its only one's), and the destination it sends with that id. */
function selectionOf(method: ShippingMethod) {
  const destinations = method.destinations ?? [];
  // A destination without an id (or with an empty one) is the first one's default id.
  const selectedId = method.selected_destination_id || (destinations.length === 1 ? (destinations[0].id || 'dest_1') : null);
  return { selectedId, named: destinations.find((d, i) => (d.id || (i === 0 ? 'dest_1' : undefined)) === selectedId) };
}

/**
 * Whether the body selects a destination it does not send (one of the session's, or a saved address): only then
 * does a create or update need the buyer's address book to read the body.
 */
export function selectsUnsentDestination(body: CheckoutRequest): boolean {
  const method = body.fulfillment ? shippingMethod(body.fulfillment) : undefined;
  if (!method) return false;
  const { selectedId, named } = selectionOf(method);
  return selectedId !== null && !named;
}

/**
 * The fulfillment the platform chose: the shipping method's selected destination (or its only one) and the option
 * selected in its first group. Pickup is not offered by this shop; a pickup method is ignored.
 */
function fulfillmentOf(f: NonNullable<CheckoutRequest['fulfillment']>, current: SessionFulfillment | null, book: readonly BookEntry[]): SessionFulfillment | null {
  const method = shippingMethod(f);
  if (!method) return current;
  const { selectedId, named } = selectionOf(method);
  // A destination the platform only names by id: the one the session has, else a saved address offered to it.
  const saved = book.find((e) => e.id === selectedId)?.address ?? null;
  const address = named ? addressOf(named) : selectedId !== null && current?.destinationId === selectedId ? current.address : saved;
  const optionId = method.groups?.find((g) => g.selected_option_id)?.selected_option_id ?? null;
  return {
    destinationId: address ? selectedId : null,
    address,
    optionId: optionId ?? (current && current.destinationId === selectedId ? current.optionId : null),
  };
}

const buyerOf = (b: z.infer<typeof Buyer>): SessionBuyer => ({
  ...(b.email ? { email: b.email } : {}),
  ...(b.first_name ? { firstName: b.first_name } : {}),
  ...(b.last_name ? { lastName: b.last_name } : {}),
  ...(b.phone_number ? { phone: b.phone_number } : {}),
  ...(b.consent ? { consent: consentOf(b.consent) } : {}),
});

const CONSENT_FIELDS = [['analytics', 'analytics'], ['preferences', 'preferences'], ['marketing', 'marketing'], ['saleOfData', 'sale_of_data']] as const;

const consentOf = (c: z.infer<typeof Consent>): SessionConsent =>
  Object.fromEntries(CONSENT_FIELDS.flatMap(([ours, theirs]) => (c[theirs] === undefined ? [] : [[ours, c[theirs]]])));

const consentOut = (c: SessionConsent): Record<string, boolean> =>
  Object.fromEntries(CONSENT_FIELDS.flatMap(([ours, theirs]) => (c[ours] === undefined ? [] : [[theirs, c[ours]]])));

/**
 * The core's changes from a create or update body; what the body leaves out stays as it is. `book`: the buyer's saved
 * addresses the caller may offer (a destination may be selected by their ids).
 */
export function changesOf(body: CheckoutRequest, current: SessionView | null, book: readonly BookEntry[] = []): SessionChanges {
  return {
    lines: body.line_items.map((l) => ({ ...(l.id ? { id: l.id } : {}), variantId: l.item.id, quantity: l.quantity })),
    ...(body.buyer !== undefined ? { buyer: body.buyer === null ? null : buyerOf(body.buyer) } : {}),
    ...(body.fulfillment ? { fulfillment: fulfillmentOf(body.fulfillment, current?.fulfillment ?? null, book) } : body.fulfillment === null ? { fulfillment: null } : {}),
    ...(body.discounts !== undefined ? { discountCodes: body.discounts?.codes ?? [] } : {}),
  };
}

/**
 * The body with an id on every shipping destination sent without one (or with an empty one): the id `save` gives
 * its address (the buyer's address book's; null leaves it without). Destinations with ids of the platform's own are
 * left as they are.
 */
export async function withSavedIds(body: CheckoutRequest, save: (address: SessionAddress) => Promise<string | null>): Promise<CheckoutRequest> {
  if (!body.fulfillment?.methods) return body;
  const methods = [];
  for (const m of body.fulfillment.methods) {
    if ((m.type ?? 'shipping') !== 'shipping' || !m.destinations) {
      methods.push(m);
      continue;
    }
    const destinations = [];
    for (const d of m.destinations) {
      const id = d.id ? null : await save(addressOf(d));
      destinations.push(id ? { ...d, id } : d);
    }
    methods.push({ ...m, destinations });
  }
  return { ...body, fulfillment: { ...body.fulfillment, methods } };
}

// ---- Responses ------------------------------------------------------------------------------------------------

/** The payment handlers a response names (`ucp.payment_handlers`), from the service's profile. */
export type HandlerRegistry = Record<string, Array<{ id: string; version: string; spec?: string; schema?: string; config?: Record<string, unknown> }>>;

/** Where in the checkout object an issue of the core points (JSONPath, as UCP messages use). */
function pathOf(path: string): string {
  const line = /^lines\[(\d+)\]$/.exec(path);
  if (line) return `$.line_items[${line[1]}]`;
  const code = /^discounts\.codes\[(\d+)\]$/.exec(path);
  if (code) return `$.discounts.codes[${code[1]}]`;
  if (path === 'fulfillment.address') return '$.fulfillment.methods[0].destinations';
  if (path === 'fulfillment.option') return '$.fulfillment.methods[0].groups[0].selected_option_id';
  return path === '' ? '$' : `$.${path}`;
}

export function messageOf(issue: SessionIssue) {
  return issue.type === 'error'
    ? { type: 'error' as const, code: issue.code, path: pathOf(issue.path), content: issue.content, severity: issue.severity }
    : { type: 'warning' as const, code: issue.code, path: pathOf(issue.path), content: issue.content };
}

const VAT_TEXT = 'VAT (included in the total)';

/** The checkout's totals: subtotal, discount (negative), fulfillment once chosen, the VAT it includes, total. */
function totalsOf(v: SessionView) {
  return [
    { type: 'subtotal', amount: v.totals.subtotal },
    ...(v.totals.discount > 0 ? [{ type: 'discount', amount: -v.totals.discount }] : []),
    ...(v.fulfillment.optionId !== null ? [{ type: 'fulfillment', amount: v.totals.fulfillment }] : []),
    { type: 'tax', display_text: VAT_TEXT, amount: v.totals.tax },
    { type: 'total', amount: v.totals.total },
  ];
}

const METHOD_ID = 'shipping';
const GROUP_ID = 'group_1';

/** A session as UCP's checkout object (with the fulfillment, discount and order extensions). */
export function checkoutOf(v: SessionView, opts: { handlers: HandlerRegistry; orderUrl: (id: string) => string; continueUrl: string; offered?: readonly BookEntry[] }) {
  const lineIds = v.lines.map((l) => l.id);
  const address = v.fulfillment.address;
  return {
    ucp: {
      version: UCP_VERSION,
      status: 'success' as const,
      capabilities: Object.fromEntries(Object.entries(CAPABILITIES).map(([name, [c]]) => [name, [{ version: c.version }]])),
      payment_handlers: opts.handlers,
    },
    id: v.id,
    status: v.status,
    currency: v.currency,
    line_items: v.lines.map((l) => ({
      id: l.id,
      item: { id: l.variantId, title: l.title, price: l.unitPrice, ...(l.imageUrl ? { image_url: l.imageUrl } : {}) },
      quantity: l.quantity,
      totals: [{ type: 'subtotal', amount: l.lineTotal }, { type: 'total', amount: l.lineTotal }],
    })),
    ...(v.buyer ? {
      buyer: {
        ...(v.buyer.email ? { email: v.buyer.email } : {}),
        ...(v.buyer.firstName ? { first_name: v.buyer.firstName } : {}),
        ...(v.buyer.lastName ? { last_name: v.buyer.lastName } : {}),
        ...(v.buyer.phone ? { phone_number: v.buyer.phone } : {}),
        ...(v.buyer.consent ? { consent: consentOut(v.buyer.consent) } : {}),
      },
    } : {}),
    totals: totalsOf(v),
    messages: v.issues.map(messageOf),
    links: [{ type: 'terms_of_service', url: v.links.terms }, { type: 'privacy_policy', url: v.links.privacy }],
    expires_at: v.expiresAt.toISOString(),
    ...(v.status === 'requires_escalation' ? { continue_url: opts.continueUrl } : {}),
    payment: { instruments: [] },
    fulfillment: {
      methods: [{
        id: METHOD_ID,
        type: 'shipping',
        line_item_ids: lineIds,
        // No destination given yet: the buyer's saved addresses are offered when the caller may see them, else none is listed.
        ...(address
          ? { destinations: [{ id: v.fulfillment.destinationId || 'dest_1', ...addressOut(address) }], selected_destination_id: v.fulfillment.destinationId || 'dest_1' }
          : opts.offered && opts.offered.length > 0 ? { destinations: opts.offered.map((e) => ({ id: e.id, ...addressOut(e.address) })) } : {}),
        groups: [{
          id: GROUP_ID,
          line_item_ids: lineIds,
          options: v.fulfillment.options.map((o) => ({ id: o.id, title: o.title, totals: [{ type: 'total', amount: o.amount }] })),
          selected_option_id: v.fulfillment.optionId,
        }],
      }],
      available_methods: [{ type: 'shipping', line_item_ids: lineIds }],
    },
    discounts: { codes: v.discounts.codes, applied: v.discounts.applied.map((a) => ({ code: a.code, title: a.code, amount: a.amount })) },
    ...(v.orderId ? { order: { id: v.orderId, permalink_url: opts.orderUrl(v.orderId) } } : {}),
  };
}

/**
 * An error's severity in UCP's terms: a checkout that lacks what the buyer must give needs the buyer; what may pass
 * by itself (a server failure, a rate limit) is recoverable by retrying; anything else is not.
 */
export function severityOfProblem(problem: { code: string; status: number }): 'recoverable' | 'requires_buyer_input' | 'unrecoverable' {
  if (problem.code === 'checkout_session_incomplete') return 'requires_buyer_input';
  return problem.status >= 500 || problem.status === 429 ? 'recoverable' : 'unrecoverable';
}

/** The error code UCP knows for a problem: the same Idempotency-Key with another request is its idempotency_conflict. */
export const errorCodeOfProblem = (code: string) => (code === 'idempotency_key_reused' ? 'idempotency_conflict' : code);

/** UCP's error response: what an operation that produced no checkout or order answers. */
export function errorOf(code: string, content: string, severity: 'recoverable' | 'requires_buyer_input' | 'unrecoverable' = 'unrecoverable', continueUrl?: string) {
  return {
    ucp: { version: UCP_VERSION, status: 'error' as const },
    messages: [{ type: 'error' as const, code, content, severity }],
    ...(continueUrl ? { continue_url: continueUrl } : {}),
  };
}

// ---- Orders ---------------------------------------------------------------------------------------------------

export type OrderFacts = {
  id: string; status: string; currency: string; createdAt: string; acpSessionId: string | null;
  subtotalDkk: number; discountDkk: number; shippingDkk: number; totalDkk: number; vatOere: number | null;
  carrier: string | null; trackingNumber: string | null; trackingUrl: string | null;
  items: ReadonlyArray<{ id: string; variantId: string | null; productName: string; unitPriceDkk: number; quantity: number }>;
};

/** When the order shipped (for its fulfillment event), if it has. */
export type ShipmentFacts = { shippedAt: string } | null;

// ---- Order updates (PUT /ucp/orders/{id}) ---------------------------------------------------------------------

const LineRef = z.looseObject({ id: text(200).min(1), quantity: z.number().int() });

/** A fulfillment event as the order schema has it (types/fulfillment_event.json); other fields are kept as sent. */
const FulfillmentEvent = z.looseObject({
  id: text(200).min(1),
  occurred_at: z.iso.datetime({ offset: true }),
  type: text(100).min(1),
  line_items: z.array(LineRef).max(1000),
  tracking_number: text(200).optional(),
  tracking_url: z.url().max(2000).optional(),
  carrier: text(200).optional(),
  description: text(2000).optional(),
});

/** An adjustment as the order schema has it (types/adjustment.json); other fields are kept as sent. */
const Adjustment = z.looseObject({
  id: text(200).min(1),
  type: text(100).min(1),
  occurred_at: z.iso.datetime({ offset: true }),
  status: z.enum(['pending', 'completed', 'failed']),
  line_items: z.array(LineRef).max(1000).optional(),
  totals: z.array(z.looseObject({ type: text(100), amount: z.number().int() })).max(50).optional(),
  description: text(2000).optional(),
});

/**
 * An order update: the order entity as the caller read it, with the events and adjustments it adds. Only those two
 * lists are read; the rest of the entity is the business's and is left as it is.
 */
export const OrderUpdateRequest = z.looseObject({
  fulfillment: z.looseObject({ events: z.array(FulfillmentEvent).max(200).optional() }).optional(),
  adjustments: z.array(Adjustment).max(200).optional(),
});
export type OrderUpdateRequest = z.infer<typeof OrderUpdateRequest>;
export type RecordedEvent = z.infer<typeof FulfillmentEvent>;
export type RecordedAdjustment = z.infer<typeof Adjustment>;

/** What was recorded on an order through its updates: events appended, adjustments appended or updated by id. */
export type OrderRecord = { events: RecordedEvent[]; adjustments: RecordedAdjustment[] };
const StoredRecord = z.object({ events: z.array(FulfillmentEvent), adjustments: z.array(Adjustment) });

/** The record kept with a session (written only by recordUpdate); none yet is an empty one. */
export function storedRecord(value: unknown): OrderRecord {
  const stored = StoredRecord.safeParse(value);
  return stored.success ? stored.data : { events: [], adjustments: [] };
}

/**
 * The record after an update. Events are an append-only log: one of a known id is not changed, and none is removed.
 * Adjustments are appended too; one of a known id replaces it (the order spec lets a business move an adjustment
 * from pending to completed in place). Returns the events that are new.
 */
export function recordUpdate(current: OrderRecord, body: OrderUpdateRequest): { record: OrderRecord; added: RecordedEvent[] } {
  const known = new Set(current.events.map((e) => e.id));
  const added: RecordedEvent[] = [];
  for (const e of body.fulfillment?.events ?? []) {
    if (known.has(e.id)) continue;
    known.add(e.id);
    added.push(e);
  }
  const adjustments = [...current.adjustments];
  for (const a of body.adjustments ?? []) {
    const at = adjustments.findIndex((x) => x.id === a.id);
    if (at >= 0) adjustments[at] = a;
    else adjustments.push(a);
  }
  return { record: { events: [...current.events, ...added], adjustments }, added };
}

const SHIPPED_OR_LATER = new Set(['shipped', 'delivered']);

/** An order placed from a UCP session as the protocol's order entity (GET /ucp/orders/{id} and webhooks). */
export function orderOf(
  o: OrderFacts, fulfillment: Pick<SessionFulfillment, 'address' | 'optionTitle'> | null, permalink: string, shipment: ShipmentFacts, record: OrderRecord | null = null,
) {
  const destination = fulfillment?.address ?? null;
  const shipped = SHIPPED_OR_LATER.has(o.status);
  const removed = o.status === 'cancelled' || o.status === 'refunded';
  const lines = o.items.map((i) => ({ id: i.id, quantity: i.quantity }));
  return {
    ucp: { version: UCP_VERSION, capabilities: { 'dev.ucp.shopping.order': [{ version: UCP_VERSION }] } },
    id: o.id,
    checkout_id: o.acpSessionId ?? '',
    permalink_url: permalink,
    line_items: o.items.map((i) => ({
      id: i.id,
      item: { id: i.variantId ?? i.id, title: i.productName, price: i.unitPriceDkk },
      quantity: { original: i.quantity, total: removed ? 0 : i.quantity, fulfilled: shipped ? i.quantity : 0 },
      totals: [{ type: 'subtotal', amount: i.unitPriceDkk * i.quantity }, { type: 'total', amount: i.unitPriceDkk * i.quantity }],
      status: removed ? 'removed' : shipped ? 'fulfilled' : 'processing',
    })),
    fulfillment: {
      expectations: destination ? [{
        id: 'exp_1', line_items: lines, method_type: 'shipping', destination: addressOut(destination),
        ...(fulfillment?.optionTitle ? { description: fulfillment.optionTitle } : {}),
      }] : [],
      // The shipment the shop recorded itself, unless an update recorded it as an event of its own.
      events: [...(shipped && shipment && !record?.events.some((e) => e.type === 'shipped') ? [{
        id: `shp_${o.id}`,
        occurred_at: shipment.shippedAt,
        type: 'shipped',
        line_items: lines,
        ...(o.trackingNumber ? { tracking_number: o.trackingNumber } : {}),
        ...(o.trackingUrl && /^https?:\/\//.test(o.trackingUrl) ? { tracking_url: o.trackingUrl } : {}),
        ...(o.carrier ? { carrier: o.carrier } : {}),
      }] : []), ...(record?.events ?? [])],
    },
    ...(record && record.adjustments.length > 0 ? { adjustments: record.adjustments } : {}),
    currency: o.currency,
    totals: [
      { type: 'subtotal', amount: o.subtotalDkk },
      ...(o.discountDkk > 0 ? [{ type: 'discount', amount: -o.discountDkk }] : []),
      { type: 'fulfillment', amount: o.shippingDkk },
      { type: 'tax', display_text: VAT_TEXT, amount: o.vatOere ?? 0 },
      { type: 'total', amount: o.totalDkk },
    ],
  };
}
