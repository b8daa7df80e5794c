import type { DbClient } from '../db/client.ts';
import { isOrderStatus, ORDER_STATUSES, REVENUE_STATUSES, type OrderStatus } from '../domain/order-transitions.ts';
import { Prisma } from '../generated/prisma/client.ts';

/** totalDkk: the orders' totals less what was refunded of them (docs/payments.md). */
type StatusRow = { status: OrderStatus; orders: bigint; agentOrders: bigint; totalDkk: bigint };
type ProductRow = { productId: string; productSlug: string | null; productName: string; quantity: bigint; revenueDkk: bigint };
type VariantRow = { productId: string; variantId: string | null; variantSku: string | null; variantAttributes: unknown; quantity: bigint; revenueDkk: bigint };

/** Sales figures of the orders created in [from, to]; see analytics.summary for what counts as revenue. */
export async function salesSummary(db: DbClient, from: Date, to: Date, topProductsLimit: number, byVariant = false) {
  const revenueStatuses = Prisma.join(REVENUE_STATUSES);
  const byStatus = await db.$queryRaw<StatusRow[]>`
    SELECT status, count(*) AS orders, count(*) FILTER (WHERE "isAiGenerated") AS "agentOrders",
           COALESCE(sum("totalDkk" - "refundedDkk"), 0)::bigint AS "totalDkk"
    FROM "Order" WHERE "createdAt" >= ${from} AND "createdAt" <= ${to}
    GROUP BY status`;
  const top = await db.$queryRaw<ProductRow[]>`
    SELECT i."productId", p.slug AS "productSlug",
           (array_agg(i."productName" ORDER BY o."createdAt" DESC, o.id DESC))[1] AS "productName",
           sum(i.quantity)::bigint AS quantity, sum(i.quantity * i."unitPriceDkk")::bigint AS "revenueDkk"
    FROM "OrderItem" i
    JOIN "Order" o ON o.id = i."orderId"
    LEFT JOIN "Product" p ON p.id = i."productId"
    WHERE o."createdAt" >= ${from} AND o."createdAt" <= ${to} AND o.status IN (${revenueStatuses})
    GROUP BY i."productId", p.slug
    ORDER BY "revenueDkk" DESC, quantity DESC, i."productId"
    LIMIT ${topProductsLimit}`;

  // Lines of orders from before variants name none: they are one group (variantId null) per product.
  const variants = !byVariant || top.length === 0 ? [] : await db.$queryRaw<VariantRow[]>`
    SELECT i."productId", i."variantId",
           (array_agg(i."variantSku" ORDER BY o."createdAt" DESC, o.id DESC))[1] AS "variantSku",
           (array_agg(i."variantAttributes" ORDER BY o."createdAt" DESC, o.id DESC))[1] AS "variantAttributes",
           sum(i.quantity)::bigint AS quantity, sum(i.quantity * i."unitPriceDkk")::bigint AS "revenueDkk"
    FROM "OrderItem" i
    JOIN "Order" o ON o.id = i."orderId"
    WHERE o."createdAt" >= ${from} AND o."createdAt" <= ${to} AND o.status IN (${revenueStatuses})
      AND i."productId" IN (${Prisma.join(top.map((r) => r.productId))})
    GROUP BY i."productId", i."variantId"
    ORDER BY "revenueDkk" DESC, quantity DESC, i."variantId" NULLS LAST`;
  const variantsOf = (productId: string) => variants.filter((v) => v.productId === productId).map(({ productId: _p, ...v }) => ({
    ...v, variantAttributes: v.variantAttributes ?? null, quantity: Number(v.quantity), revenueDkk: Number(v.revenueDkk),
  }));

  const ordersByStatus: Record<string, number> = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]));
  let orderCount = 0, agentOrderCount = 0, revenue = 0, revenueOrderCount = 0;
  for (const row of byStatus) {
    const n = Number(row.orders);
    if (isOrderStatus(row.status)) ordersByStatus[row.status] = n;
    orderCount += n;
    agentOrderCount += Number(row.agentOrders);
    if (REVENUE_STATUSES.includes(row.status)) {
      revenue += Number(row.totalDkk);
      revenueOrderCount += n;
    }
  }
  return {
    fromDate: from.toISOString(),
    toDate: to.toISOString(),
    revenueStatuses: [...REVENUE_STATUSES],
    revenueDkk: revenue,
    revenueOrderCount,
    // Math.round is half-up for the non-negative amounts here.
    averageOrderValueDkk: revenueOrderCount === 0 ? 0 : Math.round(revenue / revenueOrderCount),
    orderCount,
    ordersByStatus,
    agentOrderCount,
    agentOrderShare: orderCount === 0 ? 0 : Math.round((agentOrderCount / orderCount) * 10_000) / 10_000,
    topProducts: top.map((r) => ({
      ...r, quantity: Number(r.quantity), revenueDkk: Number(r.revenueDkk), ...(byVariant ? { variants: variantsOf(r.productId) } : {}),
    })),
  };
}
