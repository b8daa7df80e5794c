import { z } from 'zod';
import { parseRange } from '../domain/date-range.ts';
import { ORDER_STATUSES, REVENUE_STATUSES } from '../domain/order-transitions.ts';
import { defineTool } from '../registry/define-tool.ts';
import { OrderStatusSchema } from '../schemas/orders.ts';
import { DateRange, timestamp } from '../schemas/time.ts';
import { salesSummary } from '../services/analytics.ts';

const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

const count = () => z.number().int().min(0);

const Summary = z.object({
  fromDate: timestamp(),
  toDate: timestamp(),
  revenueStatuses: z.array(OrderStatusSchema).describe('The statuses whose orders count as revenue.'),
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
    variants: z.array(z.object({
      variantId: z.string().nullable().describe('null: lines of orders from before variants.'),
      variantSku: z.string().nullable(),
      variantAttributes: z.unknown().describe('Option values by name, as ordered.'),
      quantity: count(),
      revenueDkk: z.number().int(),
    })).optional().describe('With byVariant: the product’s sales per variant.'),
  })),
});

export const analyticsTools = [
  defineTool({
    name: 'analytics.summary',
    title: 'Sales summary',
    description: `Sales figures for orders created in [fromDate, toDate] (default: the last ${DEFAULT_DAYS} days up to now). Revenue counts orders in ${REVENUE_STATUSES.join(', ')} (money taken and not fully refunded), each at its total less recorded refunds. orderCount, ordersByStatus and the agent share cover every order. Top products rank by revenue in revenue orders. Amounts in øre.`,
    scope: 'analytics:read',
    input: z.strictObject({
      ...DateRange,
      topProductsLimit: z.number().int().min(1).max(50).default(10),
      byVariant: z.boolean().default(false).describe('Break each top product down by variant.'),
    }),
    output: Summary,
    kind: 'read',
    errors: ['invalid_date_range'],
    handler({ fromDate, toDate, topProductsLimit, byVariant }, ctx) {
      const range = parseRange({ fromDate, toDate });
      const to = range.to ?? new Date();
      const from = range.from ?? new Date(to.getTime() - DEFAULT_DAYS * DAY_MS);
      return salesSummary(ctx.db, from, to, topProductsLimit, byVariant);
    },
  }),
];
