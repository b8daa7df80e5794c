import { z } from 'zod';
import { parseRange } from '../domain/date-range.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { describeTransitions } from '../domain/order-transitions.ts';
import { defineTool } from '../registry/define-tool.ts';
import { OrderListItem, OrderStatusSchema, FullOrder } from '../schemas/orders.ts';
import { limit, positiveOere } from '../schemas/numbers.ts';
import { orderIdRef } from '../schemas/references.ts';
import { DateRange, timestamp } from '../schemas/time.ts';
import { emailInput, httpsUrl } from '../schemas/web.ts';
import { paymentProviderNamed } from '../domain/payment.ts';
import { text } from '../schemas/text.ts';
import { changeOrderStatus, listOrders, loadOrder, statusChangeEntry } from '../services/orders.ts';
import { assertPayable, openCheckoutSession, planRefund, recordManualRefund, refundAtStripe } from '../services/payments.ts';

const PaymentLinkOut = z.object({
  orderId: z.string(),
  provider: z.enum(['manual', 'stripe']),
  url: z.string().nullable(),
  expiresAt: timestamp().nullable(),
  instructions: z.string(),
});

const RefundOut = z.object({
  orderId: z.string(),
  status: OrderStatusSchema,
  amountDkk: z.number().int(),
  refundedDkk: z.number().int(),
  pending: z.boolean(),
  refundId: z.string().nullable(),
  reason: z.string().nullable(),
});

export const orderTools = [
  defineTool({
    name: 'orders.list',
    title: 'List orders',
    description: 'Lists orders newest first. Filters are optional and combined with AND; email matches case-insensitively and exactly. itemCount is the number of units. Amounts in øre.',
    scope: 'orders:read',
    input: z.strictObject({
      status: OrderStatusSchema.optional(),
      email: emailInput().optional(),
      ...DateRange,
      limit: limit(20),
    }),
    output: z.array(OrderListItem),
    kind: 'read',
    errors: ['invalid_date_range'],
    handler: ({ status, email, fromDate, toDate, limit: take }, ctx) =>
      listOrders(ctx.db, { status, email, ...parseRange({ fromDate, toDate }), limit: take }),
  }),

  defineTool({
    name: 'orders.get',
    title: 'Get an order',
    description: 'Returns one order with every field (null when unset) and its items.',
    scope: 'orders:read',
    input: z.strictObject({ orderId: orderIdRef() }),
    output: FullOrder,
    kind: 'read',
    errors: ['not_found'],
    handler: async ({ orderId }, ctx) => plainJson(await loadOrder(ctx.db, orderId)),
  }),

  defineTool({
    name: 'orders.update_status',
    title: 'Change an order’s status',
    description: `Moves an order to another status. Any move not listed (also to the current status) is 422 illegal_transition naming the legal targets. The audit log keeps the state before. carrier and tracking fields: with shipped only.\n${describeTransitions()}`,
    scope: 'orders:write',
    input: z.strictObject({
      orderId: orderIdRef(),
      status: OrderStatusSchema,
      carrier: text({ min: 1, max: 100 }).optional(),
      trackingNumber: text({ min: 1, max: 100 }).optional(),
      trackingUrl: httpsUrl().optional(),
    }),
    kind: 'write',
    destructive: true,
    errors: ['not_found', 'illegal_transition', 'tracking_requires_shipped'],
    // A status change moves money and stock; undoing it is another transition, not a restore.
    audit: { appendOnly: ['order'] },
    output: z.object({ id: z.string(), status: OrderStatusSchema }),
    async handler({ orderId, status, ...shipment }, ctx) {
      const moved = await changeOrderStatus(ctx.db, orderId, status, { email: ctx.config.email, shipment });
      ctx.audit(statusChangeEntry(moved));
      return { id: moved.after.id, status: moved.after.status };
    },
  }),

  defineTool({
    name: 'orders.payment_link',
    title: 'Get a payment link',
    description: 'Stripe Checkout link of a pending_payment order (the open one, else a new one); 409 order_not_payable otherwise.',
    scope: 'orders:write',
    kind: 'write',
    idempotent: true,
    openWorld: true,
    errors: ['not_found', 'order_not_payable', 'upstream_error'],
    // Records no entry: the session id it stores is a payment reference, not a change of the order's own.
    audit: { appendOnly: ['order'] },
    input: z.strictObject({ orderId: orderIdRef() }),
    output: PaymentLinkOut,
    async handler({ orderId }, ctx) {
      const order = await loadOrder(ctx.db, orderId);
      assertPayable(order);
      const provider = paymentProviderNamed(ctx.config.payments.provider);
      const { instructions } = provider.start({ orderId, totalDkk: Number(order.totalDkk), currency: order.currency });
      return { orderId, provider: provider.name, url: null, expiresAt: null, instructions };
    },
    async completeAfterCommit(result, ctx) {
      if (result.provider !== 'stripe') return result;
      const { url, expiresAt } = await openCheckoutSession(ctx.db, ctx.config, result.orderId);
      return { ...result, url, expiresAt };
    },
  }),

  defineTool({
    name: 'orders.refund',
    title: 'Refund an order',
    description: 'Refunds amountDkk øre (default: the rest) of a paid order. Stripe: the order moves when Stripe reports it (pending: true); manual: at once.',
    scope: 'orders:write',
    kind: 'write',
    destructive: true,
    requiresConfirm: true,
    openWorld: true,
    errors: ['not_found', 'not_refundable', 'refund_exceeds_paid', 'illegal_transition', 'upstream_error'],
    // Money given back is undone by nothing but another payment.
    audit: { appendOnly: ['order'] },
    input: z.strictObject({ orderId: orderIdRef(), amountDkk: positiveOere().optional(), reason: text({ min: 1, max: 500 }).optional() }),
    output: RefundOut,
    async handler({ orderId, amountDkk, reason }, ctx) {
      const plan = await planRefund(ctx.db, orderId, amountDkk);
      const before = plainJson(plan.before);
      const meta = { refundDkk: plan.amountDkk, reason: reason ?? null, provider: plan.viaStripe ? 'stripe' : 'manual' };
      const after = plan.viaStripe ? plan.before : await recordManualRefund(ctx.db, plan, ctx.config.email);
      ctx.audit({ entityType: 'order', entityId: orderId, before, after: plainJson(after), meta });
      return {
        orderId, status: after.status, amountDkk: plan.amountDkk, refundedDkk: Number(after.refundedDkk), pending: plan.viaStripe, refundId: null, reason: reason ?? null,
      };
    },
    // The refund at Stripe once the request is recorded; a replay asks again with the same idempotency key.
    async completeAfterCommit(result, ctx) {
      if (!result.pending) return result;
      const order = await loadOrder(ctx.db, result.orderId);
      if (order.stripePaymentIntentId === null) return result;
      const { refundId } = await refundAtStripe(
        ctx.config, { id: order.id, stripePaymentIntentId: order.stripePaymentIntentId, refundedDkk: BigInt(result.refundedDkk) }, result.amountDkk, result.reason ?? undefined,
      );
      return { ...result, refundId };
    },
  }),
];
