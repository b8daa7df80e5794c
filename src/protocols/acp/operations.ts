// ACP's checkout operations (docs/agentic-checkout.md, "ACP"). They are declared as tools so the REST routes
// (src/http/acp-routes.ts) take the one write path of the service — transaction, audit entries, outbox events,
// Idempotency-Key records and replays, retries — over the one checkout-session core. They are not in the tool
// registry: ACP has no MCP binding, so they are never listed to agents.
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { AppError } from '../../errors.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import { defineTool, type ReadContext, type Tool, type WriteContext } from '../../registry/define-tool.ts';
import {
  cancelSession, completedOrderEntries, completeSession, findSession, insertSession, newSession, sessionSnapshot, reviseSession, storeRevision, viewSession, type SessionOwner, type SessionView,
} from '../../services/checkout-sessions.ts';
import { paidByToken } from '../../services/agent-payments.ts';
import { changesOf, CompleteRequest, CreateRequest, sessionOf, stripeHandler, UpdateRequest, type Handler } from './wire.ts';

/** The public origin the protocol objects link to (PUBLIC_BASE_URL, else the listener's own address). */
export const publicBase = (config: Config) => config.publicBaseUrl ?? `http://${config.host}:${config.port}`;

/** The handlers a session offers: Stripe's tokenized card when Stripe is configured, else none. */
export const handlersOf = (config: Config): Handler[] => (config.payments.stripe ? [stripeHandler()] : []);

/**
 * Where the buyer finds the order: the session it came from (readable by the platform's key). The storefront has no
 * order page yet (docs/agentic-checkout.md, "ACP readings").
 */
export const permalinkOf = (base: string, sessionId: string) => `${base}/acp/checkout_sessions/${encodeURIComponent(sessionId)}`;

export function ownerOf(ctx: Pick<ReadContext, 'principal'>): SessionOwner {
  if (!ctx.principal) throw new AppError('unauthorized', 'Checkout sessions belong to an API key with checkout:agent; send one.');
  return { keyId: ctx.principal.keyId, agentName: ctx.principal.name };
}

/** ACP's name of an order's status (Order.status is an open string in the protocol). */
export function orderStatusOf(status: string): string {
  const names: Record<string, string> = {
    pending_payment: 'created', pending: 'created', paid: 'confirmed', processing: 'processing', shipped: 'shipped', delivered: 'completed',
    cancelled: 'canceled', refunded: 'canceled',
  };
  return names[status] ?? status;
}

/** The session as ACP answers it; `viewed`: its view as the write already made it. */
async function rendered(ctx: ReadContext | WriteContext, row: CheckoutSession, viewed?: SessionView) {
  const base = publicBase(ctx.config);
  const view = viewed ?? await viewSession(ctx.db, row, base);
  const order = row.orderId ? await ctx.db.order.findUnique({ where: { id: row.orderId }, select: { id: true, status: true } }) : null;
  return sessionOf(view, { handlers: handlersOf(ctx.config), order: order && { id: order.id, permalinkUrl: permalinkOf(base, row.id), status: orderStatusOf(order.status) } });
}

const audited = (ctx: WriteContext, before: CheckoutSession | null, after: CheckoutSession, meta?: unknown) =>
  ctx.audit({ entityType: 'checkout_session', entityId: after.id, before: before && sessionSnapshot(before), after: sessionSnapshot(after), ...(meta ? { meta } : {}) });

const Id = z.string().min(1).max(100);
/** The ACP body, already checked by the route against its request schema (errors in ACP's shape there). */
const Body = z.record(z.string(), z.unknown());
const Output = z.record(z.string(), z.unknown());

const SESSION_ERRORS = ['not_found', 'checkout_session_closed', 'discount_unavailable', 'value_out_of_range'] as const;

/** What every ACP write declares besides its input, errors and handler. */
const write = (name: string, title: string, description: string, audited: readonly string[] = ['checkout_session']) =>
  ({ name, title, description, scope: 'checkout:agent', audit: { appendOnly: audited } }) as const;

export const acpOperations = {
  create: defineTool({
    ...write('acp.create_checkout_session', 'Create an ACP checkout session', 'ACP: creates a checkout session.'),
    kind: 'write',
    errors: [...SESSION_ERRORS],
    input: z.strictObject({ body: Body }),
    output: Output,
    async handler({ body }, ctx) {
      const request = CreateRequest.parse(body);
      const row = newSession(ownerOf(ctx), 'acp', changesOf(request, null));
      const answer = await rendered(ctx, row);
      // Stored in the write's final statement, so after everything the answer read.
      await insertSession(ctx.db, row);
      audited(ctx, null, row);
      return answer;
    },
  }),
  get: defineTool({
    name: 'acp.get_checkout_session',
    title: 'Get an ACP checkout session',
    description: 'ACP: the checkout session as it stands, priced now.',
    scope: 'checkout:agent',
    kind: 'read',
    errors: ['not_found'],
    input: z.strictObject({ id: Id }),
    output: Output,
    handler: async ({ id }, ctx) => rendered(ctx, await findSession(ctx.db, ownerOf(ctx), id, 'acp')),
  }),
  update: defineTool({
    ...write('acp.update_checkout_session', 'Update an ACP checkout session', 'ACP: changes items, buyer, fulfillment details, the selected option or discount codes.'),
    kind: 'write',
    errors: [...SESSION_ERRORS],
    input: z.strictObject({ id: Id, body: Body }),
    output: Output,
    async handler({ id, body }, ctx) {
      const request = UpdateRequest.parse(body);
      const owner = ownerOf(ctx);
      const { before, after, view } = await reviseSession(ctx.db, owner, id, 'acp', publicBase(ctx.config), (current) => changesOf(request, current), changesOf(request, null));
      audited(ctx, before, after);
      const answer = await rendered(ctx, after, view);
      // Stored in the write's final statement, so after everything the answer read.
      await storeRevision(ctx.db, after, 'last');
      return answer;
    },
  }),
  cancel: defineTool({
    ...write('acp.cancel_checkout_session', 'Cancel an ACP checkout session', 'ACP: cancels an open checkout session.'),
    kind: 'write',
    errors: ['not_found', 'checkout_session_closed'],
    input: z.strictObject({ id: Id, body: Body }),
    output: Output,
    async handler({ id, body }, ctx) {
      const { before, after } = await cancelSession(ctx.db, ownerOf(ctx), id, 'acp');
      audited(ctx, before, after, Object.keys(body).length > 0 ? { request: body } : undefined);
      return rendered(ctx, after);
    },
  }),
} satisfies Record<string, Tool>;

/**
 * The completion, made for one request: `payment` is the PaymentIntent the route had Stripe take before (outside
 * any transaction) for the session's total, or null when none was taken (the session was closed already: only a
 * replay of the completion that closed it answers then). The payment is not part of the tool's input, so the
 * Idempotency-Key fingerprint is the platform's body alone.
 */
export const completeOperation = (payment: { intentId: string; amount: number } | null): Tool => defineTool({
    ...write('acp.complete_checkout_session', 'Complete an ACP checkout session', 'ACP: places the order the agent’s payment (a Stripe PaymentIntent, charged before) paid for.', ['checkout_session', 'order']),
    kind: 'write',
    errors: [...SESSION_ERRORS, 'checkout_session_incomplete', 'out_of_stock', 'conflict'],
    input: z.strictObject({ id: Id, body: Body }),
    output: Output,
    async handler({ id, body }, ctx) {
      const request = CompleteRequest.parse(body);
      const owner = ownerOf(ctx);
      if (!payment) throw new AppError('checkout_session_closed', `Checkout session "${id}" cannot be completed now.`);
      if (request.buyer) {
        const { before, after } = await reviseSession(ctx.db, owner, id, 'acp', publicBase(ctx.config), (current) => changesOf({ buyer: request.buyer }, current));
        await storeRevision(ctx.db, after, 'now');
        audited(ctx, before, after);
      }
      const base = publicBase(ctx.config);
      const { before, after, placed, view } = await completeSession(ctx.db, owner, id, 'acp', base, new Date(), paidByToken(payment.intentId), ctx.config.email);
      // What was charged is what the order costs; a price that changed in between fails the completion (refunded).
      if (view.totals.total !== payment.amount) {
        throw new AppError('conflict', `The total changed to ${view.totals.total} while the payment of ${payment.amount} was taken; it is refunded. Complete again.`);
      }
      for (const entry of completedOrderEntries(id, placed, { stripePaymentIntentId: payment.intentId })) ctx.audit(entry);
      audited(ctx, before, after, { orderId: placed.order.id });
      return sessionOf(view, { handlers: handlersOf(ctx.config), order: { id: placed.order.id, permalinkUrl: permalinkOf(base, id), status: orderStatusOf('paid') } });
    },
  });
