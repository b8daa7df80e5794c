import { z } from 'zod';
import { parseRange } from '../domain/date-range.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { describeTransitions } from '../domain/order-transitions.ts';
import { defineTool } from '../registry/define-tool.ts';
import { OrderListItem, OrderStatusSchema, FullOrder } from '../schemas/orders.ts';
import { limit } from '../schemas/numbers.ts';
import { orderIdRef } from '../schemas/references.ts';
import { DateRange } from '../schemas/time.ts';
import { text } from '../schemas/text.ts';
import { emailInput, httpsUrl } from '../schemas/web.ts';
import { changeOrderStatus, listOrders, loadOrder } from '../services/orders.ts';

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
      const { before, after, meta } = await changeOrderStatus(ctx.db, orderId, status, { email: ctx.config.email, shipment });
      ctx.audit({ entityType: 'order', entityId: orderId, before: plainJson(before), after: plainJson(after), meta });
      return { id: after.id, status: after.status };
    },
  }),
];
