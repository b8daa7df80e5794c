// UCP's checkout operations (docs/agentic-checkout.md): the MCP binding's tools on /api/mcp, and what the REST
// binding's routes (src/http/ucp-routes.ts) call, so both transports take the one write path (transaction, audit,
// Idempotency-Key, retries) over the one checkout-session core. Listed only to keys with checkout:agent.
import { z } from 'zod';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { checkProfileUrl, platformOf, type PlatformFacts } from '../protocols/ucp/platform.ts';
import { continueUrlOf, paidInstrument, paymentHandlers, takePayment } from '../protocols/ucp/payment.ts';
import { manualPaymentProvider } from '../domain/payment.ts';
import {
  changesOf, checkoutOf, chosenInstrument, CheckoutRequest, CompleteRequest, orderOf, OrderUpdateRequest, recordUpdate, selectsUnsentDestination, storedRecord, withSavedIds, type OrderFacts, type OrderRecord, type RecordedEvent,
} from '../protocols/ucp/wire.ts';
import { defineTool, type ReadContext, type Tool, type WriteContext } from '../registry/define-tool.ts';
import { describeIssues } from '../registry/invoke-tool.ts';
import { problemOfIssues } from '../schemas/domain-issue.ts';
import {
  cancelSession, completedOrderEntries, completeSession, escalateSession, findSession, insertSession, newSession, reviseSession, sessionFulfillment, sessionSnapshot, storeRevision, viewSession,
  type SessionOwner, type SessionView,
} from '../services/checkout-sessions.ts';
import { changeOrderStatus, loadOrder, statusChangeEntry, type Shipment } from '../services/orders.ts';
import { toJsonValue } from '../db/json-value.ts';
import { httpsUrl } from '../schemas/web.ts';
import { legalTargets } from '../domain/order-transitions.ts';
import { ensurePlatformEndpoint } from '../services/platform-webhooks.ts';
import { addressBook, bookEmail, rememberAddress, type BookEntry } from '../services/buyer-addresses.ts';
import type { CheckoutSession } from '../generated/prisma/client.ts';

/** The binding's request metadata: the platform's profile (the UCP-Agent header) and, for MCP, the idempotency key. */
const Meta = z.looseObject({
  'ucp-agent': z.looseObject({ profile: z.string().min(1).max(2000) }),
  'idempotency-key': z.string().min(1).max(255).optional(),
});
const Id = z.string().min(1).max(100);
/**
 * Requests and results are the protocol's objects; their schemas are the protocol's own (named by the profile). The
 * published schemas stay open objects, so tools/list stays small; the body is checked against its schema here.
 */
const UcpObject = z.record(z.string(), z.unknown());

function parsed<T extends z.ZodType>(schema: T, value: unknown, field = 'checkout'): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({ ...i, path: [field, ...i.path] }));
    throw new AppError(problemOfIssues(issues), describeIssues(issues));
  }
  return result.data;
}

const orderUrlOf = (base: string, id: string) => `${base}/ucp/orders/${encodeURIComponent(id)}`;

/** The public origin the protocol objects link to (PUBLIC_BASE_URL, else the listener's own address). */
const publicBase = (config: Config) => config.publicBaseUrl ?? `http://${config.host}:${config.port}`;

function ownerOf(ctx: Pick<ReadContext, 'principal'>): SessionOwner {
  if (!ctx.principal) throw new AppError('unauthorized', 'Checkout sessions belong to an API key with checkout:agent; send one.');
  return { keyId: ctx.principal.keyId, agentName: ctx.principal.name };
}

/**
 * A create or update naming an item the shop does not sell, or more units than it has, is refused (400, nothing
 * changes): the conformance suite expects it so (docs/agentic-checkout.md, reading 16). A line that runs out later
 * stays a message of the checkout, and its completion is refused.
 */
function refuseUnsellable(view: SessionView): void {
  for (const issue of view.issues) {
    const line = /^lines\[(\d+)\]$/.exec(issue.path);
    if (!line || issue.type !== 'error') continue;
    const at = `(line_items[${line[1]}])`;
    if (issue.code === 'out_of_stock') throw new AppError('out_of_stock', `Insufficient stock: ${issue.content} ${at}`);
    const item = view.lines[Number(line[1])];
    throw new AppError('invalid_request', item && item.title === item.variantId ? `Item "${item.variantId}" not found ${at}.` : `${issue.content} ${at}`);
  }
}

/**
 * The shop's address book is customers' data: offered to a checkout, and added to by it, only for a key that may
 * read customers' data anyway (customer:read; docs/agentic-checkout.md, reading 15).
 */
const mayUseBook = (ctx: Pick<ReadContext, 'principal'>) => ctx.principal?.scopes.has('customer:read') ?? false;

/**
 * The body with the buyer's address book applied: a destination sent without an id is saved for the buyer (or found
 * saved) and takes its id; and the book, by whose ids a destination may be selected, when the body selects one it
 * does not send (undefined otherwise: not read, as most platforms send the address they select).
 */
async function withBook(ctx: WriteContext, checkout: CheckoutRequest, email: string | undefined): Promise<{ checkout: CheckoutRequest; book: BookEntry[] | undefined }> {
  if (!email || !mayUseBook(ctx)) return { checkout, book: [] };
  const saved = await withSavedIds(checkout, async (address) => {
    if (!address.streetAddress && !address.postalCode) return null;
    const entry = await rememberAddress(ctx.db, email, address);
    if (entry.created) ctx.audit({ entityType: 'buyer_address', entityId: entry.id, before: null, after: { id: entry.id, email: bookEmail(email), address: entry.address } });
    return entry.id;
  });
  return { checkout: saved, book: selectsUnsentDestination(saved) ? await addressBook(ctx.db, email) : undefined };
}

/**
 * The checkout as the protocol answers it. `refuse`: a create or update, which refuses lines the shop cannot sell;
 * `book`: the buyer's address book as that write already read it (withBook), so it is not read again; read here only
 * when it is offered (the checkout has no address yet). `viewed`: the checkout's view as the write already made it.
 */
async function rendered(ctx: ReadContext | WriteContext, row: CheckoutSession, refuse = false, book?: BookEntry[], viewed?: SessionView) {
  const base = publicBase(ctx.config);
  const view = viewed ?? await viewSession(ctx.db, row, base);
  if (refuse) refuseUnsellable(view);
  const email = view.buyer?.email;
  const offered = view.fulfillment.address || !email || !mayUseBook(ctx) ? [] : (book ?? await addressBook(ctx.db, email));
  return checkoutOf(view, { handlers: paymentHandlers(ctx.config), orderUrl: (id) => orderUrlOf(base, id), continueUrl: await continueUrlOf(ctx, base, view), offered });
}

async function platform(ctx: WriteContext, meta: z.infer<typeof Meta>): Promise<PlatformFacts> {
  const facts = await platformOf(ctx.config, checkProfileUrl(meta['ucp-agent'].profile));
  if (facts.webhookUrl && ctx.principal) await ensurePlatformEndpoint(ctx.db, ctx.secrets, ctx.principal.keyId, facts.webhookUrl, facts.profile);
  return facts;
}

const audited = (ctx: WriteContext, before: CheckoutSession | null, after: CheckoutSession, meta?: unknown) =>
  ctx.audit({ entityType: 'checkout_session', entityId: after.id, before: before && sessionSnapshot(before), after: sessionSnapshot(after), ...(meta ? { meta } : {}) });

const SESSION_ERRORS = ['not_found', 'checkout_session_closed', 'unsupported_version', 'discount_unavailable', 'value_out_of_range'] as const;
/** A create or update also refuses lines it cannot sell (refuseUnsellable). */
const LINE_ERRORS = ['out_of_stock'] as const;

export const ucpTools: readonly Tool[] = [
  defineTool({
    name: 'create_checkout',
    title: 'Create a UCP checkout',
    description: 'UCP: creates a checkout session (line items by variant id, buyer, fulfillment, discount codes).',
    scope: 'checkout:agent',
    kind: 'write',
    errors: [...SESSION_ERRORS, ...LINE_ERRORS],
    audit: { appendOnly: ['checkout_session', 'buyer_address'] },
    input: z.strictObject({ meta: Meta, checkout: UcpObject }),
    output: UcpObject,
    async handler({ meta, checkout: body }, ctx) {
      const request = parsed(CheckoutRequest, body);
      const facts = await platform(ctx, meta);
      const { checkout, book } = await withBook(ctx, request, request.buyer?.email);
      const row = newSession(ownerOf(ctx), 'ucp', { ...changesOf(checkout, null, book ?? []), platform: facts });
      const answer = await rendered(ctx, row, true, book);
      // Stored in the write's final statement, so after everything the answer read.
      await insertSession(ctx.db, row);
      audited(ctx, null, row);
      return answer;
    },
  }),
  defineTool({
    name: 'get_checkout',
    title: 'Get a UCP checkout',
    description: 'UCP: the checkout session as it stands, priced now.',
    scope: 'checkout:agent',
    kind: 'read',
    errors: ['not_found'],
    input: z.strictObject({ meta: Meta, id: Id }),
    output: UcpObject,
    handler: async ({ id }, ctx) => rendered(ctx, await findSession(ctx.db, ownerOf(ctx), id, 'ucp')),
  }),
  defineTool({
    name: 'update_checkout',
    title: 'Update a UCP checkout',
    description: 'UCP: replaces the line items and sets buyer, fulfillment and discount codes when given.',
    scope: 'checkout:agent',
    kind: 'write',
    errors: [...SESSION_ERRORS, ...LINE_ERRORS],
    audit: { appendOnly: ['checkout_session', 'buyer_address'] },
    input: z.strictObject({ meta: Meta, id: Id, checkout: UcpObject }),
    output: UcpObject,
    async handler({ meta, id, checkout: body }, ctx) {
      const request = parsed(CheckoutRequest, body);
      const facts = await platform(ctx, meta);
      let book: BookEntry[] | undefined;
      const { before, after, view } = await reviseSession(ctx.db, ownerOf(ctx), id, 'ucp', publicBase(ctx.config), async (current) => {
        // The buyer the checkout will have: the one sent, else the one it has.
        const email = request.buyer === undefined ? current.buyer?.email : request.buyer?.email;
        const applied = await withBook(ctx, request, email);
        book = applied.book;
        return { ...changesOf(applied.checkout, current, book ?? []), platform: facts };
      }, changesOf(request, null));
      audited(ctx, before, after);
      const answer = await rendered(ctx, after, true, book, view);
      // Stored in the write's final statement, so after everything the answer read.
      await storeRevision(ctx.db, after, 'last');
      return answer;
    },
  }),
  defineTool({
    name: 'complete_checkout',
    title: 'Complete a UCP checkout',
    description: 'UCP: pays with the given instrument and places the order; without a fitting payment handler the checkout needs escalation (continue_url).',
    scope: 'checkout:agent',
    kind: 'write',
    errors: [...SESSION_ERRORS, 'checkout_session_incomplete', 'out_of_stock', 'payment_declined', 'payment_rejected', 'conflict', 'upstream_error'],
    audit: { appendOnly: ['checkout_session', 'order'] },
    input: z.strictObject({ meta: Meta, id: Id, checkout: UcpObject }),
    output: UcpObject,
    async handler({ meta, id, checkout: body }, ctx) {
      const owner = ownerOf(ctx);
      const base = publicBase(ctx.config);
      const requestKey = meta['idempotency-key'] ?? `request-${ctx.requestId}`;
      const payment = await takePayment(ctx, owner, id, chosenInstrument(parsed(CompleteRequest, body)), base, requestKey);
      if (!payment.paid) {
        const { before, after } = await escalateSession(ctx.db, owner, id, 'ucp', base, new Date(), payment.pending);
        audited(ctx, before, after, { escalated: payment.reason });
        return rendered(ctx, after);
      }
      // A payment taken by the Stripe handler places the order paid, with the buyer's confirmation; the test
      // handler's order awaits its payment as a manual one does, with no e-mail.
      const email = payment.provider === manualPaymentProvider ? undefined : ctx.config.email;
      const { before, after, placed, view } = await completeSession(ctx.db, owner, id, 'ucp', base, new Date(), payment.provider, email);
      // What was charged is what the order costs; a price that changed in between fails the completion (refunded).
      if (payment.charged && payment.charged.amount !== view.totals.total) {
        throw new AppError('conflict', `The total changed to ${view.totals.total} while the payment of ${payment.charged.amount} was taken; it is refunded. Complete again.`);
      }
      for (const entry of completedOrderEntries(id, placed, { handler: payment.handler, reference: payment.reference })) ctx.audit(entry);
      audited(ctx, before, after, { orderId: placed.order.id });
      // The order's statement is still to run (it joins the write's last statement): rendered from what it will hold.
      const completed = checkoutOf(view, { handlers: paymentHandlers(ctx.config), orderUrl: (o) => orderUrlOf(base, o), continueUrl: '' });
      return { ...completed, payment: { instruments: [paidInstrument(payment.instrument)] } };
    },
  }),
  defineTool({
    name: 'cancel_checkout',
    title: 'Cancel a UCP checkout',
    description: 'UCP: cancels an open checkout session.',
    scope: 'checkout:agent',
    kind: 'write',
    errors: ['not_found', 'checkout_session_closed'],
    audit: { appendOnly: ['checkout_session'] },
    input: z.strictObject({ meta: Meta, id: Id }),
    output: UcpObject,
    async handler({ id }, ctx) {
      const { before, after } = await cancelSession(ctx.db, ownerOf(ctx), id, 'ucp');
      audited(ctx, before, after);
      return rendered(ctx, after);
    },
  }),
  defineTool({
    name: 'get_order',
    title: 'Get a UCP order',
    description: 'UCP: an order placed from one of the caller’s checkouts.',
    scope: 'checkout:agent',
    kind: 'read',
    errors: ['not_found'],
    input: z.strictObject({ meta: Meta, id: Id }),
    output: UcpObject,
    async handler({ id }, ctx) {
      const session = await ownOrder(ctx.db, ownerOf(ctx), id);
      return renderedOrder(ctx, await loadOrder(ctx.db, id), session, storedRecord(session.orderRecord));
    },
  }),
];

/** An order of one of the caller's UCP checkouts, with its session; any other is missing (ids reveal nothing). */
async function ownOrder(db: ReadContext['db'], owner: SessionOwner, id: string, lock = false): Promise<CheckoutSession> {
  const [session] = lock
    ? await db.$queryRaw<CheckoutSession[]>`SELECT * FROM "CheckoutSession" WHERE "orderId" = ${id} FOR UPDATE`
    : [await db.checkoutSession.findUnique({ where: { orderId: id } })];
  if (!session || session.apiKeyId !== owner.keyId || session.protocol !== 'ucp') throw new AppError('not_found', `No order with id "${id}".`);
  return session;
}

const renderedOrder = (ctx: ReadContext | WriteContext, order: LoadedOrder, session: CheckoutSession, record: OrderRecord) =>
  orderOf(orderFacts(order), sessionFulfillment(session), orderUrlOf(publicBase(ctx.config), order.id), order.shippedAt ? { shippedAt: order.shippedAt.toISOString() } : null, record);

/** The carrier and tracking of a shipped event, as orders.update_status would store them (an https tracking page only). */
const shipmentOf = (e: RecordedEvent): Shipment => ({
  ...(e.carrier && e.carrier.length <= 100 ? { carrier: e.carrier } : {}),
  ...(e.tracking_number && e.tracking_number.length <= 100 ? { trackingNumber: e.tracking_number } : {}),
  ...(e.tracking_url && httpsUrl().safeParse(e.tracking_url).success ? { trackingUrl: e.tracking_url } : {}),
});

/**
 * UCP's order as its business writes it (REST only, PUT /ucp/orders/{id}; docs/agentic-checkout.md, reading 17): a key
 * with orders:write, which may move any order through the order tools, records fulfillment events and adjustments on
 * an order of its own UCP checkouts. A new shipped event ships the order as orders.update_status does.
 */
export const ucpRestTools: readonly Tool[] = [defineTool({
  name: 'update_order',
  title: 'Record events on a UCP order',
  description: 'UCP (REST only): records fulfillment events and adjustments on an order of one of the caller’s checkouts; a new shipped event ships the order.',
  scope: 'orders:write',
  kind: 'write',
  errors: ['not_found'],
  // A shipment moves stock and money states on; undoing it is another transition, not a restore (as orders.update_status).
  audit: { appendOnly: ['checkout_session', 'order'] },
  input: z.strictObject({ meta: Meta, id: Id, order: UcpObject }),
  output: UcpObject,
  async handler({ id, order: body }, ctx) {
    const update = parsed(OrderUpdateRequest, body, 'order');
    const session = await ownOrder(ctx.db, ownerOf(ctx), id, true);
    let order = await loadOrder(ctx.db, id);
    const items = new Set(order.items.map((i) => i.id));
    const refs = [...(update.fulfillment?.events ?? []), ...(update.adjustments ?? [])].flatMap((e) => e.line_items ?? []);
    const unknown = refs.find((l) => !items.has(l.id));
    if (unknown) throw new AppError('invalid_request', `order: line item "${unknown.id}" is not a line item of order "${id}".`);
    const { record, added } = recordUpdate(storedRecord(session.orderRecord), update);
    const shipped = added.find((e) => e.type === 'shipped');
    // The event is recorded either way (it says what happened); an order not shipped yet moves only where
    // orders.update_status could move it, and says so when it does not (an order still awaiting its payment is not
    // shipped by a report).
    const ships = shipped !== undefined && order.shippedAt === null;
    const held = ships && !legalTargets(order.status).includes('shipped') ? order.status : null;
    if (shipped && ships && !held) {
      const moved = await changeOrderStatus(ctx.db, id, 'shipped', { email: ctx.config.email, shipment: shipmentOf(shipped) });
      ctx.audit(statusChangeEntry(moved));
      order = moved.after;
    }
    const after = await ctx.db.checkoutSession.update({ where: { id: session.id }, data: { orderRecord: toJsonValue(record), updatedAt: new Date() } });
    audited(ctx, session, after, { orderId: id });
    const messages = held ? [{ type: 'warning', code: 'status_unchanged', path: '$.fulfillment.events', content: `The shipment is recorded; the order stays ${held} (it cannot move to shipped from there).` }] : [];
    return { ...renderedOrder(ctx, order, after, record), ...(messages.length > 0 ? { messages } : {}) };
  },
})];

type LoadedOrder = Awaited<ReturnType<typeof loadOrder>>;

function orderFacts(o: LoadedOrder): OrderFacts {
  return {
    id: o.id, status: o.status, currency: o.currency, createdAt: o.createdAt.toISOString(), acpSessionId: o.acpSessionId,
    subtotalDkk: Number(o.subtotalDkk), discountDkk: Number(o.discountDkk), shippingDkk: Number(o.shippingDkk), totalDkk: Number(o.totalDkk),
    vatOere: o.vatOere === null ? null : Number(o.vatOere), carrier: o.carrier, trackingNumber: o.trackingNumber, trackingUrl: o.trackingUrl,
    items: o.items.map((i) => ({ id: i.id, variantId: i.variantId, productName: i.productName, unitPriceDkk: Number(i.unitPriceDkk), quantity: Number(i.quantity) })),
  };
}
