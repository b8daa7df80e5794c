import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.ts';
import { REVENUE_STATUSES } from '../domain/order-transitions.ts';
import { containsPattern } from '../domain/like-pattern.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { emailInput, listOrderSummaries, OrderListItem } from './orders.ts';
import { limit, text, timestamp } from './shared-schemas.ts';

/** How many of a customer's orders customers.get returns. */
const RECENT_ORDERS = 10;

const CustomerSummary = z.object({
  email: z.string().describe('Lower-cased: orders are grouped by email case-insensitively.'),
  name: z.string().describe('The shipping name of the most recent order.'),
  orderCount: z.number().int().min(0),
  totalSpentDkk: z.number().int().min(0).describe('Σ totalDkk of orders in a revenue status (see analytics.summary).'),
  firstOrderAt: timestamp(),
  lastOrderAt: timestamp(),
});

type CustomerRow = { email: string; name: string; orderCount: bigint; totalSpentDkk: bigint; firstOrderAt: Date; lastOrderAt: Date };

/**
 * Customers are not stored: a customer is everyone who ordered with the same email (compared case-insensitively),
 * so the figures are always consistent with the orders themselves.
 */
async function customers(db: ToolContext['db'], where: Prisma.Sql, take: number) {
  const rows = await db.$queryRaw<CustomerRow[]>`
    SELECT lower(o.email) AS email,
           (array_agg(o."shippingName" ORDER BY o."createdAt" DESC, o.id DESC))[1] AS name,
           count(*) AS "orderCount",
           COALESCE(sum(o."totalDkk") FILTER (WHERE o.status IN (${Prisma.join(REVENUE_STATUSES)})), 0)::bigint AS "totalSpentDkk",
           min(o."createdAt") AS "firstOrderAt",
           max(o."createdAt") AS "lastOrderAt"
    FROM "Order" o
    WHERE ${where}
    GROUP BY lower(o.email)
    ORDER BY max(o."createdAt") DESC, lower(o.email)
    LIMIT ${take}`;
  return rows.map((r) => ({
    ...r,
    orderCount: Number(r.orderCount),
    totalSpentDkk: Number(r.totalSpentDkk),
    firstOrderAt: r.firstOrderAt.toISOString(),
    lastOrderAt: r.lastOrderAt.toISOString(),
  }));
}

export const customerTools = [
  defineTool({
    name: 'customers.list',
    title: 'List customers',
    description: 'Lists customers derived from orders (grouped by email, case-insensitively), most recently ordering first, with order count, amount spent (øre, revenue statuses only) and first/last order time.',
    scope: 'customer:read',
    input: z.strictObject({
      query: text({ min: 1, max: 254 }).optional().describe('Part of the email, matched literally and case-insensitively.'),
      limit: limit(20),
    }),
    output: z.array(CustomerSummary),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: ({ query, limit: take }, ctx) =>
      customers(ctx.db, query === undefined ? Prisma.sql`TRUE` : Prisma.sql`o.email ILIKE ${containsPattern(query)}`, take),
  }),

  defineTool({
    name: 'customers.get',
    title: 'Get a customer',
    description: `Returns one customer (by email, case-insensitive) with the figures of customers.list and their ${RECENT_ORDERS} most recent orders.`,
    scope: 'customer:read',
    input: z.strictObject({ email: emailInput() }),
    output: CustomerSummary.extend({ recentOrders: z.array(OrderListItem) }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler({ email }, ctx) {
      const sameEmail = Prisma.sql`lower(o.email) = lower(${email})`;
      const [customer] = await customers(ctx.db, sameEmail, 1);
      if (!customer) throw new AppError('not_found', `No orders with email "${email}".`);
      return { ...customer, recentOrders: await listOrderSummaries(ctx.db, [sameEmail], RECENT_ORDERS) };
    },
  }),
];
