import type { DbClient } from '../db/client.ts';
import { containsPattern } from '../domain/like-pattern.ts';
import { REVENUE_STATUSES } from '../domain/order-transitions.ts';
import { AppError } from '../errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { listOrderSummaries } from './orders.ts';

type CustomerRow = { email: string; name: string; orderCount: bigint; totalSpentDkk: bigint; firstOrderAt: Date; lastOrderAt: Date };

/**
 * Customers are not stored: a customer is everyone who ordered with the same email (compared case-insensitively),
 * so the figures are always consistent with the orders themselves.
 */
async function customers(db: DbClient, where: Prisma.Sql, take: number) {
  const rows = await db.$queryRaw<CustomerRow[]>`
    SELECT lower(o.email) AS email,
           (array_agg(o."shippingName" ORDER BY o."createdAt" DESC, o.id DESC))[1] AS name,
           count(*) AS "orderCount",
           COALESCE(sum(o."totalDkk" - o."refundedDkk") FILTER (WHERE o.status IN (${Prisma.join(REVENUE_STATUSES)})), 0)::bigint AS "totalSpentDkk",
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

/** Customers whose email contains `query` (literally, case-insensitively), most recently ordering first. */
export const listCustomers = (db: DbClient, query: string | undefined, take: number) =>
  customers(db, query === undefined ? Prisma.sql`TRUE` : Prisma.sql`o.email ILIKE ${containsPattern(query)}`, take);

/** One customer with their most recent orders. */
export async function getCustomer(db: DbClient, email: string, recentOrders: number) {
  const sameEmail = Prisma.sql`lower(o.email) = lower(${email})`;
  const [customer] = await customers(db, sameEmail, 1);
  if (!customer) throw new AppError('not_found', `No orders with email "${email}".`);
  return { ...customer, recentOrders: await listOrderSummaries(db, [sameEmail], recentOrders) };
}
