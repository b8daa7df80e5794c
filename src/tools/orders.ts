import { z } from 'zod';
import { queryRows } from '../db/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { assertTransition, describeTransitions, ORDER_STATUSES } from '../domain/order-transitions.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { releaseDiscount } from './discounts.ts';
import { limit, text, timestamp, timestampInput } from './shared-schemas.ts';

export const OrderStatusSchema = z.enum(ORDER_STATUSES);
export const emailInput = () => z.email().max(254);
export const orderIdRef = () => text({ min: 1, max: 100 });

const ListItemLine = z.object({ productName: z.string(), quantity: z.number().int(), unitPriceDkk: z.number().int() });

/** Spec §2.3 list item. itemCount is the number of units (Σ quantity), not of lines: `items` already gives those. */
export const OrderListItem = z.object({
  id: z.string(),
  email: z.string(),
  shippingName: z.string(),
  status: z.string(),
  subtotalDkk: z.number().int(),
  discountDkk: z.number().int(),
  shippingDkk: z.number().int(),
  totalDkk: z.number().int(),
  discountCode: z.string().nullable(),
  itemCount: z.number().int().min(0),
  items: z.array(ListItemLine),
  createdAt: timestamp(),
});

const OrderItemOut = z.object({
  id: z.string(),
  orderId: z.string(),
  productId: z.string(),
  productName: z.string(),
  unitPriceDkk: z.number().int(),
  quantity: z.number().int(),
  variantId: z.string().nullable(),
  variantSku: z.string().nullable(),
  variantAttributes: z.unknown().describe('Opaque JSON snapshot of the chosen variant attributes, or null.'),
});

const str = () => z.string();
const optStr = () => z.string().nullable();
const optTime = () => timestamp().nullable();

/** Spec §2.3 full order: every field, always present (null when unset). */
export const FullOrder = z.object({
  id: str(),
  userId: optStr(),
  email: str(),
  status: str(),
  shippingName: str(),
  shippingAddress: str(),
  shippingZip: str(),
  shippingCity: str(),
  billingName: optStr(),
  billingAddress: optStr(),
  billingZip: optStr(),
  billingCity: optStr(),
  billingCountry: optStr(),
  phoneNumber: optStr(),
  subtotalDkk: z.number().int(),
  shippingDkk: z.number().int(),
  discountDkk: z.number().int(),
  totalDkk: z.number().int(),
  vatOere: z.number().int().nullable(),
  invoiceProvider: optStr(),
  invoiceId: optStr(),
  invoicePdfUrl: optStr(),
  discountCode: optStr(),
  isAiGenerated: z.boolean(),
  aiAgentSource: optStr(),
  carrier: optStr(),
  trackingNumber: optStr(),
  trackingUrl: optStr(),
  estDeliveryFrom: optTime(),
  estDeliveryTo: optTime(),
  createdAt: timestamp(),
  stripePaymentIntentId: optStr(),
  paymentMethod: optStr(),
  paidAt: optTime(),
  confirmationEmailSentAt: optTime(),
  refundedAt: optTime(),
  disputedAt: optTime(),
  currency: str(),
  fxRate: z.number(),
  channel: str(),
  acpSessionId: optStr(),
  items: z.array(OrderItemOut),
});

/** Accepts ISO 8601 with Z or an offset; fromDate and toDate are both inclusive. */
export const DateRange = {
  fromDate: timestampInput().optional().describe('Only orders created at or after this moment.'),
  toDate: timestampInput().optional().describe('Only orders created at or before this moment.'),
};

export function parseRange(range: { fromDate?: string; toDate?: string }): { from: Date | null; to: Date | null } {
  const from = range.fromDate ? new Date(range.fromDate) : null;
  const to = range.toDate ? new Date(range.toDate) : null;
  if (from && to && from > to) throw new AppError('invalid_request', 'fromDate: must not be after toDate.');
  return { from, to };
}

type Amount = bigint | string;
type SummaryRow = {
  id: string; email: string; shippingName: string; status: string; subtotalDkk: Amount; discountDkk: Amount;
  shippingDkk: Amount; totalDkk: Amount; discountCode: string | null; createdAt: Date;
  items: { productName: string; quantity: number; unitPriceDkk: number }[];
};

/**
 * Orders matching all `where` conditions (SQL over `"Order" o`), newest first, in the list-item shape of spec §2.3.
 * One query with the lines aggregated per order: the bench measured the earlier orders-then-items pair at
 * p99 45 ms under load.
 */
export async function listOrderSummaries(db: ToolContext['db'], where: readonly Prisma.Sql[], take: number) {
  const rows = await queryRows<SummaryRow>(db, Prisma.sql`
    SELECT o.id, o.email, o."shippingName", o.status, o."subtotalDkk", o."discountDkk", o."shippingDkk", o."totalDkk",
           o."discountCode", o."createdAt",
           COALESCE((SELECT json_agg(json_build_object('productName', i."productName", 'quantity', i.quantity,
                                                       'unitPriceDkk', i."unitPriceDkk") ORDER BY i.id)
                     FROM "OrderItem" i WHERE i."orderId" = o.id), '[]'::json) AS items
    FROM "Order" o
    ${where.length > 0 ? Prisma.sql`WHERE ${Prisma.join(where, ' AND ')}` : Prisma.empty}
    ORDER BY o."createdAt" DESC, o.id DESC
    LIMIT ${take}`);
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    shippingName: r.shippingName,
    status: r.status,
    subtotalDkk: Number(r.subtotalDkk),
    discountDkk: Number(r.discountDkk),
    shippingDkk: Number(r.shippingDkk),
    totalDkk: Number(r.totalDkk),
    discountCode: r.discountCode,
    itemCount: r.items.reduce((n, i) => n + i.quantity, 0),
    items: r.items,
    createdAt: r.createdAt.toISOString(),
  }));
}

/** The order with its items: what orders.get returns and what the order's audit entries snapshot. */
export async function loadOrder(db: ToolContext['db'], id: string) {
  const order = await db.order.findUnique({ where: { id }, include: { items: { orderBy: { id: 'asc' } } } });
  if (!order) throw new AppError('not_found', `No order with id "${id}".`);
  return order;
}

/** Puts a cancelled order's units back on the shelf, product by product in id order (the lock order checkout uses). */
async function returnStock(db: ToolContext['db'], items: readonly { productId: string; quantity: bigint }[]) {
  const perProduct = new Map<string, bigint>();
  for (const i of items) perProduct.set(i.productId, (perProduct.get(i.productId) ?? 0n) + i.quantity);
  const sorted = [...perProduct].sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [productId, quantity] of sorted) {
    await db.product.update({ where: { id: productId }, data: { stock: { increment: quantity } } });
  }
  return sorted.map(([productId, quantity]) => ({ productId, quantity: Number(quantity) }));
}

export const orderTools = [
  defineTool({
    name: 'orders.list',
    title: 'List orders',
    description: 'Lists orders newest first. Filters (all optional, combined with AND): status, email (case-insensitive, exact), fromDate/toDate (inclusive, on createdAt). itemCount is the number of units. Amounts in øre.',
    scope: 'orders:read',
    input: z.strictObject({
      status: OrderStatusSchema.optional(),
      email: emailInput().optional(),
      ...DateRange,
      limit: limit(20),
    }),
    output: z.array(OrderListItem),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler({ status, email, fromDate, toDate, limit: take }, ctx) {
      const { from, to } = parseRange({ fromDate, toDate });
      const where: Prisma.Sql[] = [];
      if (status) where.push(Prisma.sql`o.status = ${status}`);
      if (email) where.push(Prisma.sql`lower(o.email) = lower(${email})`);
      if (from) where.push(Prisma.sql`o."createdAt" >= ${from}`);
      if (to) where.push(Prisma.sql`o."createdAt" <= ${to}`);
      return listOrderSummaries(ctx.db, where, take);
    },
  }),

  defineTool({
    name: 'orders.get',
    title: 'Get an order',
    description: 'Returns one order with every field of spec §2.3 (null when unset) and its items.',
    scope: 'orders:read',
    input: z.strictObject({ orderId: orderIdRef() }),
    output: FullOrder,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: async ({ orderId }, ctx) => plainJson(await loadOrder(ctx.db, orderId)) as z.input<typeof FullOrder>,
  }),

  defineTool({
    name: 'orders.update_status',
    title: 'Change an order’s status',
    description: `Moves an order to another status; only the moves below are legal (others, and "moving" to the current status, give 422 illegal_transition naming the legal targets). The state before the change is kept in the audit log.\n${describeTransitions()}`,
    scope: 'orders:write',
    input: z.strictObject({ orderId: orderIdRef(), status: OrderStatusSchema }),
    output: z.object({ id: z.string(), status: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    async handler({ orderId, status }, ctx) {
      // Row lock: two concurrent cancels must not both return the stock.
      const [locked] = await ctx.db.$queryRaw<{ id: string }[]>`SELECT id FROM "Order" WHERE id = ${orderId} FOR UPDATE`;
      if (!locked) throw new AppError('not_found', `No order with id "${orderId}".`);
      const before = await loadOrder(ctx.db, orderId);
      const effects = assertTransition(before.status, status);

      const data: Prisma.OrderUpdateInput = { status };
      if (effects.stamp && before[effects.stamp] === null) data[effects.stamp] = new Date();
      let meta: { stockReturned: { productId: string; quantity: number }[]; discountUseReturned: string | null } | undefined;
      if (effects.releaseIfNotShipped && before.shippedAt === null) {
        const stockReturned = await returnStock(ctx.db, before.items);
        if (before.discountCode) await releaseDiscount(ctx.db, before.discountCode);
        meta = { stockReturned, discountUseReturned: before.discountCode };
      }
      await ctx.db.order.update({ where: { id: orderId }, data });
      const after = await loadOrder(ctx.db, orderId);
      ctx.audit({ entityType: 'order', entityId: orderId, before: plainJson(before), after: plainJson(after), meta });
      return { id: after.id, status: after.status };
    },
  }),
];
