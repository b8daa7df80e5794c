import { Prisma } from '../generated/prisma/client.ts';

/**
 * A row count written into the SQL text instead of sent as a parameter. For LIMIT and OFFSET this matters to a
 * prepared statement: with a parameter there PostgreSQL's generic plan assumes a tenth of the rows and looks dearer
 * than a custom plan, so the statement is planned again on every call (test/perf-guards/prepared-plans.test.ts).
 * Each distinct value is a distinct SQL text, so a statement name must include it.
 */
export function rowCount(n: number): Prisma.Sql {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a row count: ${n}`);
  return Prisma.raw(String(n));
}
