// ACP 2026-04-17's wire format for checkout sessions (docs/agentic-checkout.md, "ACP"): request bodies parsed into
// the checkout-session core's changes, and the core's views rendered as the protocol's CheckoutSession. Field names
// and shapes follow the protocol's JSON Schema; the readings this needed are listed in that document.
import { z } from 'zod';
import type { SessionAddress, SessionBuyer, SessionFulfillment, SessionIssue } from '../../domain/checkout-session.ts';
import type { SessionChanges, SessionView } from '../../services/checkout-sessions.ts';
import { AcpError } from './errors.ts';

export const ACP_VERSION = '2026-04-17';

// ---- Requests -------------------------------------------------------------------------------------------------

const text = (max: number) => z.string().max(max);

const Address = z.looseObject({
  name: text(300).optional(),
  line_one: text(500).optional(),
  line_two: text(500).optional(),
  city: text(200).optional(),
  state: text(200).optional(),
  country: text(100).optional(),
  postal_code: text(20).optional(),
});

/** A requested item: the variant id, and (the RFC's Item; the JSON Schema leaves it out) how many, default 1. */
const Item = z.looseObject({ id: text(200).min(1), quantity: z.number().int().min(1).max(1_000_000).optional() });

const Buyer = z.looseObject({
  email: z.email().max(320),
  first_name: text(200).optional(),
  last_name: text(200).optional(),
  full_name: text(400).optional(),
  phone_number: text(40).optional(),
});

const FulfillmentDetails = z.looseObject({
  name: text(300).optional(),
  phone_number: text(40).optional(),
  email: z.email().max(320).optional(),
  address: Address.optional(),
});

const Selected = z.looseObject({ type: z.enum(['shipping', 'digital', 'pickup', 'local_delivery']), option_id: text(200), item_ids: z.array(text(200)).max(100) });

const Discounts = z.looseObject({ codes: z.array(text(64).min(1)).max(10).optional() });

const common = {
  buyer: Buyer.nullable().optional(),
  fulfillment_details: FulfillmentDetails.nullable().optional(),
  discounts: Discounts.nullable().optional(),
  /** Deprecated by the protocol in favour of discounts.codes; still read when discounts is absent. */
  coupons: z.array(text(64).min(1)).max(10).optional(),
  order_notes: text(5000).optional(),
};

export const CreateRequest = z.looseObject({
  ...common,
  line_items: z.array(Item).min(1).max(100),
  currency: z.string().regex(/^[A-Za-z]{3}$/, 'an ISO 4217 code').optional(),
});
export type CreateRequest = z.infer<typeof CreateRequest>;

export const UpdateRequest = z.looseObject({
  ...common,
  line_items: z.array(Item).min(1).max(100).optional(),
  selected_fulfillment_options: z.array(Selected).max(5).optional(),
});
export type UpdateRequest = z.infer<typeof UpdateRequest>;

const Credential = z.looseObject({ type: text(100), token: text(2000) });

export const CompleteRequest = z.looseObject({
  buyer: Buyer.optional(),
  payment_data: z.looseObject({
    handler_id: text(200).optional(),
    instrument: z.looseObject({ type: text(100), credential: Credential }).optional(),
    billing_address: Address.optional(),
    purchase_order_number: text(200).optional(),
  }),
});
export type CompleteRequest = z.infer<typeof CompleteRequest>;

export const CancelRequest = z.looseObject({ intent_trace: z.looseObject({}).optional() });

/** RFC 9535 JSONPath of a zod issue's path: `$.line_items[0].quantity`. */
export const jsonPath = (path: readonly PropertyKey[]) => `$${path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;

/** Parses a body with its schema; the first problem becomes the protocol's Error (400 invalid_request, param). */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const absent = issue.code === 'invalid_type' && issue.input === undefined;
  throw new AcpError(400, absent ? 'missing' : 'invalid', `${jsonPath(issue.path)}: ${issue.message}`, jsonPath(issue.path));
}

/** Repeated item ids become one line: their quantities add up (the core keeps one line per variant). */
function linesOf(items: ReadonlyArray<z.infer<typeof Item>>): NonNullable<SessionChanges['lines']> {
  const byId = new Map<string, number>();
  for (const i of items) byId.set(i.id, (byId.get(i.id) ?? 0) + (i.quantity ?? 1));
  return [...byId].map(([variantId, quantity]) => ({ variantId, quantity }));
}

function addressOf(a: z.infer<typeof Address>, phone: string | undefined): SessionAddress {
  return {
    ...(a.name ? { firstName: a.name } : {}), ...(a.line_one ? { streetAddress: a.line_one } : {}), ...(a.line_two ? { extendedAddress: a.line_two } : {}),
    ...(a.city ? { locality: a.city } : {}), ...(a.state ? { region: a.state } : {}), ...(a.postal_code ? { postalCode: a.postal_code } : {}),
    ...(a.country ? { country: a.country } : {}), ...(phone ? { phone } : {}),
  };
}

const buyerOf = (b: z.infer<typeof Buyer>): SessionBuyer => {
  const [first, ...rest] = (b.full_name ?? '').trim().split(/\s+/);
  return {
    email: b.email,
    ...(b.first_name ?? first ? { firstName: b.first_name ?? first } : {}),
    ...(b.last_name ?? (rest.length > 0 ? rest.join(' ') : undefined) ? { lastName: b.last_name ?? rest.join(' ') } : {}),
    ...(b.phone_number ? { phone: b.phone_number } : {}),
  };
};

/**
 * The core's changes of a create or update. A session with an address ships with the cheapest option offered unless
 * the platform selects another id (one not offered is reported as such). The contact
 * e-mail of fulfillment_details stands in for the buyer's while the session has no buyer.
 */
export function changesOf(body: UpdateRequest, current: SessionView | null): SessionChanges {
  const changes: SessionChanges = {};
  if (body.line_items) changes.lines = linesOf(body.line_items);
  if (body.buyer !== undefined) changes.buyer = body.buyer === null ? null : buyerOf(body.buyer);
  const details = body.fulfillment_details;
  if (details?.email && body.buyer === undefined && !current?.buyer?.email) changes.buyer = { email: details.email, ...(details.name ? { firstName: details.name } : {}) };
  const selected = body.selected_fulfillment_options?.[0]?.option_id;
  if (details !== undefined || selected !== undefined) {
    const address = details === undefined ? (current?.fulfillment.address ?? null) : details?.address ? addressOf(details.address, details.phone_number) : null;
    // Without a selection the core ships with the cheapest option offered (docs/agentic-checkout.md, ACP readings).
    const optionId = selected ?? current?.fulfillment.optionId ?? null;
    const fulfillment: SessionFulfillment = { destinationId: null, address, optionId };
    changes.fulfillment = details === null ? null : fulfillment;
  }
  const codes = body.discounts === null ? [] : (body.discounts?.codes ?? body.coupons);
  if (codes !== undefined) changes.discountCodes = codes;
  return changes;
}

// ---- Responses ------------------------------------------------------------------------------------------------

type Total = { type: string; display_text: string; amount: number; description?: string };
type Message =
  | { type: 'error'; code: string; severity: 'high'; resolution?: string; param?: string; content_type: 'plain'; content: string }
  | { type: 'warning'; code: string; param?: string; content_type: 'plain'; content: string };

/** The session's status in ACP's words: a session that lacks something is `not_ready_for_payment`. */
export function statusOf(view: SessionView): string {
  if (view.expired) return 'expired';
  switch (view.status) {
    case 'incomplete': return 'not_ready_for_payment';
    case 'ready_for_complete': return 'ready_for_payment';
    default: return view.status;
  }
}

/** Where an issue of the core points, as a JSONPath into the ACP session. */
function paramOf(path: string): string | undefined {
  const line = /^lines\[(\d+)\]$/.exec(path);
  if (line) return `$.line_items[${line[1]}]`;
  const code = /^discounts\.codes\[(\d+)\]$/.exec(path);
  if (code) return `$.discounts.codes[${code[1]}]`;
  const known: Record<string, string> = {
    lines: '$.line_items', 'buyer.email': '$.buyer.email', 'fulfillment.address': '$.fulfillment_details.address', 'fulfillment.option': '$.selected_fulfillment_options',
  };
  return known[path];
}

const ERROR_CODES: Record<string, string> = { missing: 'missing', out_of_stock: 'out_of_stock', item_unavailable: 'invalid', expired: 'expired' };

export function messageOf(issue: SessionIssue): Message {
  const param = paramOf(issue.path);
  if (issue.type === 'warning') return { type: 'warning', code: issue.code === 'discount_code_invalid' ? 'discount_code_invalid' : 'limited_availability', ...(param ? { param } : {}), content_type: 'plain', content: issue.content };
  return {
    type: 'error', code: ERROR_CODES[issue.code] ?? 'invalid', severity: 'high',
    ...(issue.severity === 'unrecoverable' ? {} : { resolution: issue.severity }), ...(param ? { param } : {}), content_type: 'plain', content: issue.content,
  };
}

/** Cart-level totals: VAT is included in the prices, so `tax` shows the VAT the total holds and is not added again. */
function totalsOf(view: SessionView): Total[] {
  const t = view.totals;
  return [
    { type: 'items_base_amount', display_text: 'Items', amount: t.subtotal },
    ...(t.discount > 0 ? [{ type: 'discount', display_text: 'Discount', amount: t.discount }] : []),
    { type: 'subtotal', display_text: 'Subtotal', amount: t.subtotal - t.discount },
    ...(view.fulfillment.optionId !== null ? [{ type: 'fulfillment', display_text: 'Shipping', amount: t.fulfillment }] : []),
    { type: 'tax', display_text: 'VAT (included)', amount: t.tax, description: 'VAT included in the prices and the total' },
    { type: 'total', display_text: 'Total', amount: t.total },
  ];
}

function fulfillmentDetailsOf(view: SessionView) {
  const a = view.fulfillment.address;
  if (!a) return undefined;
  const name = [a.firstName, a.lastName].filter(Boolean).join(' ');
  return {
    ...(name ? { name } : {}), ...(a.phone ? { phone_number: a.phone } : {}), ...(view.buyer?.email ? { email: view.buyer.email } : {}),
    address: {
      ...(name ? { name } : {}), ...(a.streetAddress ? { line_one: a.streetAddress } : {}), ...(a.extendedAddress ? { line_two: a.extendedAddress } : {}),
      ...(a.locality ? { city: a.locality } : {}), ...(a.region ? { state: a.region } : {}), ...(a.country ? { country: a.country } : {}),
      ...(a.postalCode ? { postal_code: a.postalCode } : {}),
    },
  };
}

/** The payment handlers a session offers: Stripe's tokenized card (SharedPaymentToken) when Stripe is configured. */
export type Handler = Record<string, unknown> & { id: string };

export const STRIPE_HANDLER_ID = 'card_tokenized';

export function stripeHandler(): Handler {
  return {
    id: STRIPE_HANDLER_ID,
    name: 'dev.acp.tokenized.card',
    display_name: 'Card',
    version: '2026-01-22',
    spec: 'https://acp.dev/handlers/tokenized.card',
    requires_delegate_payment: true,
    requires_pci_compliance: false,
    psp: 'stripe',
    config_schema: 'https://acp.dev/schemas/handlers/tokenized.card/config.json',
    instrument_schemas: ['https://acp.dev/schemas/handlers/tokenized.card/instrument.json'],
    config: { psp: 'stripe', credential_types: ['spt'] },
  };
}

export type OrderRef = { id: string; permalinkUrl: string; status: string };

export type Rendering = { handlers: readonly Handler[]; order?: OrderRef | null; extraMessages?: readonly Message[] };

/** The core's view as ACP's CheckoutSession (with `order` once it is completed). */
export function sessionOf(view: SessionView, r: Rendering) {
  const itemIds = view.lines.map((l) => l.variantId);
  const details = fulfillmentDetailsOf(view);
  return {
    id: view.id,
    protocol: { version: ACP_VERSION },
    capabilities: { payment: { handlers: [...r.handlers] } },
    ...(view.buyer?.email ? {
      buyer: {
        email: view.buyer.email, ...(view.buyer.firstName ? { first_name: view.buyer.firstName } : {}),
        ...(view.buyer.lastName ? { last_name: view.buyer.lastName } : {}), ...(view.buyer.phone ? { phone_number: view.buyer.phone } : {}),
      },
    } : {}),
    status: statusOf(view),
    currency: view.currency.toLowerCase(),
    line_items: view.lines.map((l) => ({
      id: l.id,
      item: { id: l.variantId },
      quantity: l.quantity,
      name: l.title,
      ...(l.imageUrl ? { images: [l.imageUrl] } : {}),
      unit_amount: l.unitPrice,
      ...(l.sku ? { sku: l.sku } : {}),
      variant_id: l.variantId,
      totals: [
        { type: 'items_base_amount', display_text: 'Base amount', amount: l.lineTotal },
        { type: 'subtotal', display_text: 'Subtotal', amount: l.lineTotal },
        { type: 'total', display_text: 'Total', amount: l.lineTotal },
      ],
    })),
    ...(details ? { fulfillment_details: details } : {}),
    fulfillment_options: view.fulfillment.options.map((o) => ({
      type: 'shipping' as const, id: o.id, title: o.title, totals: [{ type: 'total', display_text: o.title, amount: o.amount }],
    })),
    ...(view.fulfillment.optionId !== null ? { selected_fulfillment_options: [{ type: 'shipping' as const, option_id: view.fulfillment.optionId, item_ids: itemIds }] } : {}),
    totals: totalsOf(view),
    messages: [...view.issues.map(messageOf), ...(r.extraMessages ?? [])],
    links: [{ type: 'terms_of_use', url: view.links.terms }, { type: 'privacy_policy', url: view.links.privacy }],
    ...(view.discounts.codes.length > 0 ? { discounts: { codes: view.discounts.codes } } : {}),
    created_at: view.createdAt.toISOString(),
    expires_at: view.expiresAt.toISOString(),
    ...(r.order ? { order: { id: r.order.id, checkout_session_id: view.id, permalink_url: r.order.permalinkUrl, status: r.order.status } } : {}),
  };
}

export const declinedMessage = (content: string): Message => ({
  type: 'error', code: 'payment_declined', severity: 'high', resolution: 'requires_buyer_input', param: '$.payment_data', content_type: 'plain', content,
});
