import { Prisma } from '../generated/prisma/client.ts';

/**
 * The claim of a work queue whose rows are `pending` from `"nextAttemptAt"` on (the webhook deliveries, the e-mail
 * outbox), as a `due` CTE: up to `limit` due rows, oldest due first, locked with SKIP LOCKED, so instances claiming
 * at the same time get different rows. The claim's UPDATE then moves each one's next attempt to leaseEnd().
 */
export function dueRows(table: 'WebhookDelivery' | 'EmailOutbox', limit: number): Prisma.Sql {
  return Prisma.sql`due AS (
      SELECT id FROM ${Prisma.raw(`"${table}"`)}
      WHERE status = 'pending' AND "nextAttemptAt" <= now()
      ORDER BY "nextAttemptAt"
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )`;
}

/** When a row claimed now falls due again if its claimer never records it: the end of the claim's lease. */
export const leaseEnd = (leaseMs: number) => Prisma.sql`now() + ${leaseMs}::float8 * interval '1 millisecond'`;
