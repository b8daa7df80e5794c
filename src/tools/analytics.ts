import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.ts';
import { ORDER_STATUSES, REVENUE_STATUSES, isOrderStatus } from '../domain/order-transitions.ts';
import { defineTool } from '../registry/define-tool.ts';
import { DateRange, parseRange } from './orders.ts';
import { timestamp } from './shared-schemas.ts';

const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

const count = () => z.number().int().min(0);

const Summary = z.object({
  fromDate: timestamp(),
  toDate: timestamp(),
  revenueStatuses: z.array(z.string()).describe('The statuses whose orders count as revenue.'),
  revenueDkk: z.number().int(),
  revenueOrderCount: count(),
  averageOrderValueDkk: z.number().int().describe('revenueDkk / revenueOrderCount, rounded half-up to the øre; 0 without revenue orders.'),
  orderCount: count().describe('All orders created in the range, whatever their status.'),
  ordersByStatus: z.object(Object.fromEntries(ORDER_STATUSES.map((s) => [s, count()]))),
  agentOrderCount: count(),
  agentOrderShare: z.number().min(0).max(1).describe('agentOrderCount / orderCount (isAiGenerated orders), 4 decimals; 0 without orders.'),
  topProducts: z.array(z.object({
    productId: z.string(),
    productSlug: z.string().nullable(),
    productName: z.string(),
    quantity: count(),
    revenueDkk: z.number().int().describe('Σ unit price × quantity, before order-level discounts.'),
  })),
});

type StatusRow = { status: string; orders: bigint; agentOrders: bigint; totalDkk: bigint };
type ProductRow = { productId: string; productSlug: string | null; productName: string; quantity: bigint; revenueDkk: bigint };

export const analyticsTools = [
  defineTool({
    name: 'analytics.summary',
    title: 'Sales summary',
    description: `Sales figures for orders created in [fromDate, toDate] (default: the last ${DEFAULT_DAYS} days up to now). Revenue counts orders in ${REVENUE_STATUSES.join(', ')} (money taken and not fully refunded; partial refunds count in full because the refunded amount is not recorded). orderCount, ordersByStatus and the agent share cover every order. Top products rank by revenue in revenue orders. Amounts in øre.`,
    scope: 'analytics:read',
    input: z.strictObject({
      ...DateRange,
      topProductsLimit: z.number().int().min(1).max(50).default(10),
    }),
    output: Summary,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler({ fromDate, toDate, topProductsLimit }, ctx) {
      const range = parseRange({ fromDate, toDate });
      const to = range.to ?? new Date();
      const from = range.from ?? new Date(to.getTime() - DEFAULT_DAYS * DAY_MS);
      const revenueStatuses = Prisma.join(REVENUE_STATUSES);

      const byStatus = await ctx.db.$queryRaw<StatusRow[]>`
        SELECT status, count(*) AS orders, count(*) FILTER (WHERE "isAiGenerated") AS "agentOrders",
               COALESCE(sum("totalDkk"), 0)::bigint AS "totalDkk"
        FROM "Order" WHERE "createdAt" >= ${from} AND "createdAt" <= ${to}
        GROUP BY status`;
      const top = await ctx.db.$queryRaw<ProductRow[]>`
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

      const ordersByStatus: Record<string, number> = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]));
      let orderCount = 0, agentOrderCount = 0, revenue = 0, revenueOrderCount = 0;
      for (const row of byStatus) {
        const n = Number(row.orders);
        if (isOrderStatus(row.status)) ordersByStatus[row.status] = n;
        orderCount += n;
        agentOrderCount += Number(row.agentOrders);
        if ((REVENUE_STATUSES as readonly string[]).includes(row.status)) {
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
        topProducts: top.map((r) => ({ ...r, quantity: Number(r.quantity), revenueDkk: Number(r.revenueDkk) })),
      };
    },
  }),
];
