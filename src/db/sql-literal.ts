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

/**
 * A table's columns as this build's Prisma schema names them (`Prisma.<Model>ScalarFieldEnum`), for the select list
 * of a prepared statement that returns whole rows. Never `*` there: once a migration adds a column (expand-only,
 * while the previous release still runs), PostgreSQL refuses every further run of a prepared `*` statement on the
 * connections that prepared it ("cached plan must not change result type", 0A000). This build's own list keeps the
 * statement's result what it was.
 */
export function columnsOf(fields: Readonly<Record<string, string>>, alias?: string): Prisma.Sql {
  return Prisma.raw(Object.values(fields).map((c) => (alias ? `${alias}."${c}"` : `"${c}"`)).join(', '));
}
