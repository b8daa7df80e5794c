import type { EmailConfig } from '../config.ts';
import { queryRows, type DbClient, type Tx } from '../db/client.ts';
import { columnsOf } from '../db/sql-literal.ts';
import { emailOfStatus, enqueueStatusEmail } from '../email/outbox.ts';
import { assertTransition, type OrderStatus } from '../domain/order-transitions.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { AppError } from '../errors.ts';
import { Prisma, type Order, type OrderItem } from '../generated/prisma/client.ts';
import { releaseDiscount } from './discounts.ts';

type Amount = bigint | string;
type SummaryRow = {
  id: string; email: string; shippingName: string; status: OrderStatus; subtotalDkk: Amount; discountDkk: Amount;
  shippingDkk: Amount; totalDkk: Amount; discountCode: string | null; createdAt: Date;
  items: { productName: string; quantity: number; unitPriceDkk: number }[];
};

/**
 * Orders matching all `where` conditions (SQL over `"Order" o`), newest first, in the list-item shape of
 * docs/commerce.md. One query with the lines aggregated per order: the bench measured the earlier orders-then-items
 * pair at p99 45 ms under load.
 */
export async function listOrderSummaries(db: DbClient, where: readonly Prisma.Sql[], take: number) {
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

export type OrderFilter = { status?: OrderStatus; email?: string; from: Date | null; to: Date | null; limit: number };

export function listOrders(db: DbClient, filter: OrderFilter) {
  const where: Prisma.Sql[] = [];
  if (filter.status) where.push(Prisma.sql`o.status = ${filter.status}`);
  if (filter.email) where.push(Prisma.sql`lower(o.email) = lower(${filter.email})`);
  if (filter.from) where.push(Prisma.sql`o."createdAt" >= ${filter.from}`);
  if (filter.to) where.push(Prisma.sql`o."createdAt" <= ${filter.to}`);
  return listOrderSummaries(db, where, filter.limit);
}

/** The order with its items: what orders.get returns and what the order's audit entries snapshot. */
export async function loadOrder(db: DbClient, id: string) {
  const order = await db.order.findUnique({ where: { id }, include: { items: { orderBy: { id: 'asc' } } } });
  if (!order) throw new AppError('not_found', `No order with id "${id}".`);
  return order;
}

/**
 * Puts a cancelled order's units back on the shelf: its products locked in id order first (the lock order checkout
 * and variant writes use), then each line's units back to its variant (a variant whose stock is not tracked had none
 * taken). A line from before variants names none; its units go to the product's default variant.
 */
async function returnStock(tx: Tx, items: readonly { productId: string; variantId: string | null; quantity: bigint }[]) {
  const perProduct = new Map<string, bigint>();
  for (const i of items) perProduct.set(i.productId, (perProduct.get(i.productId) ?? 0n) + i.quantity);
  const sorted = [...perProduct].sort(([a], [b]) => (a < b ? -1 : 1));
  await tx.$queryRaw`SELECT id FROM "Product" WHERE id = ANY(${sorted.map(([id]) => id)}::text[]) ORDER BY id FOR NO KEY UPDATE`;
  for (const i of items) {
    if (i.variantId !== null) await tx.productVariant.updateMany({ where: { id: i.variantId, trackStock: true }, data: { stock: { increment: i.quantity } } });
    // Sold before variants: to the variant the migration made of the product ('v' || md5(id)) while it is live, else
    // to the first live one.
    else await tx.$executeRaw`
      UPDATE "ProductVariant" SET stock = stock + ${i.quantity}, "updatedAt" = now()
      WHERE id = (SELECT id FROM "ProductVariant" WHERE "productId" = ${i.productId} AND "deletedAt" IS NULL AND "trackStock"
                  ORDER BY id = 'v' || md5(${i.productId}) DESC, position, id LIMIT 1)`;
  }
  return sorted.map(([productId, quantity]) => ({ productId, quantity: Number(quantity) }));
}

export type StatusChangeMeta = { stockReturned: { productId: string; quantity: number }[]; discountUseReturned: string | null };

/** Carrier and tracking of a shipment, stored with the move to `shipped`. */
export type Shipment = { carrier?: string; trackingNumber?: string; trackingUrl?: string };

export type StatusChangeOptions = {
  /**
   * The service's SMTP settings (config.email): with them, the buyer's e-mail a move causes (the confirmation on
   * paid, the shipping notice on shipped) is written to the outbox in this transaction (docs/email.md); without,
   * none. Required so that no caller forgets it: every path that moves an order passes its config's.
   */
  email: EmailConfig | undefined;
  shipment?: Shipment;
};

/** Whole order and order-line rows from prepared statements: the columns of this build (src/db/sql-literal.ts). */
const ORDER_COLUMNS = columnsOf(Prisma.OrderScalarFieldEnum);
const ORDER_LINE_COLUMNS = columnsOf(Prisma.OrderItemScalarFieldEnum);

/**
 * Moves an order along a legal transition and applies its effects (timestamps; stock and discount use given back;
 * the buyer's e-mail written to the outbox; carrier and tracking stored with a move to shipped).
 */
export async function changeOrderStatus(tx: Tx, orderId: string, status: OrderStatus, options: StatusChangeOptions) {
  const { shipment = {} } = options;
  if (status !== 'shipped' && Object.values(shipment).some((v) => v !== undefined)) {
    throw new AppError('tracking_requires_shipped', `carrier, trackingNumber and trackingUrl are stored with status "shipped" only, not "${status}".`);
  }
  const before = await lockOrder(tx, orderId);
  const effects = assertTransition(before.status, status);
  let meta: StatusChangeMeta | undefined;
  if (effects.releaseIfNotShipped && before.shippedAt === null) {
    const stockReturned = await returnStock(tx, before.items);
    // A checkout session's order may carry several codes, comma-separated (src/services/checkout.ts).
    for (const code of before.discountCode?.split(',') ?? []) await releaseDiscount(tx, code);
    meta = { stockReturned, discountUseReturned: before.discountCode };
  }
  // The move's timestamp is set on first entry only; tracking left out keeps what the order has.
  const stamp = effects.stamp && before[effects.stamp] === null ? effects.stamp : null;
  const now = new Date();
  const [updated] = await queryRows<Order>(tx, Prisma.sql`
    UPDATE "Order" SET status = ${status}::"OrderStatus",
      carrier = coalesce(${shipment.carrier ?? null}::text, carrier),
      "trackingNumber" = coalesce(${shipment.trackingNumber ?? null}::text, "trackingNumber"),
      "trackingUrl" = coalesce(${shipment.trackingUrl ?? null}::text, "trackingUrl"),
      "paidAt" = CASE WHEN ${stamp}::text = 'paidAt' THEN ${now} ELSE "paidAt" END,
      "shippedAt" = CASE WHEN ${stamp}::text = 'shippedAt' THEN ${now} ELSE "shippedAt" END,
      "refundedAt" = CASE WHEN ${stamp}::text = 'refundedAt' THEN ${now} ELSE "refundedAt" END,
      "disputedAt" = CASE WHEN ${stamp}::text = 'disputedAt' THEN ${now} ELSE "disputedAt" END,
      "updatedAt" = ${now}
    WHERE id = ${orderId}
    RETURNING ${ORDER_COLUMNS}`, { prepareAs: 'move_order' });
  // The order as it is now: the updated row, with the lines a move does not change (not read a second time).
  const after = { ...updated, items: before.items };
  // A statement of its own, only on moves to paid or shipped with e-mail set up: the callers (the tool, Stripe's
  // webhook) do not all end in a final statement a deferred write could join.
  await enqueueStatusEmail(tx, options.email, orderId, emailOfStatus(status, before.confirmationEmailSentAt));
  return { before, after, meta };
}

/**
 * The order with its lines, its row locked for a move: two concurrent cancels must not both return the stock. Two
 * prepared statements sent together, one round trip, where Prisma took three queries (lock, order, lines): every
 * payment Stripe reports and every status an operator sets moves an order (docs/performance.md, "ACP sessions").
 */
async function lockOrder(tx: Tx, orderId: string): Promise<Order & { items: OrderItem[] }> {
  const [orders, items] = await Promise.all([
    queryRows<Order>(tx, Prisma.sql`SELECT ${ORDER_COLUMNS} FROM "Order" WHERE id = ${orderId} FOR UPDATE`, { prepareAs: 'lock_order' }),
    queryRows<OrderItem>(tx, Prisma.sql`SELECT ${ORDER_LINE_COLUMNS} FROM "OrderItem" WHERE "orderId" = ${orderId} ORDER BY id`, { prepareAs: 'order_lines' }),
  ]);
  const [order] = orders;
  if (!order) throw new AppError('not_found', `No order with id "${orderId}".`);
  return { ...order, items };
}

/** The audit entry of a move (changeOrderStatus): the order before and after, and what the move gave back. */
export function statusChangeEntry({ before, after, meta }: Awaited<ReturnType<typeof changeOrderStatus>>) {
  return { entityType: 'order', entityId: after.id, before: plainJson(before), after: plainJson(after), ...(meta ? { meta } : {}) };
}
