import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient, type Prisma } from '../generated/prisma/client.ts';

export type Db = PrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => …)`. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** Either: services take this so they run both on their own and inside a write's transaction. */
export type DbClient = Db | Tx;

export type DbOptions = { connectionString: string; poolMax?: number; onQuery?: () => void };

/** The pg pool under each client, for hand-written reads outside transactions (see queryRows). */
const pools = new WeakMap<object, pg.Pool>();

/**
 * Every connection of this process carries this name in pg_stat_activity: operators see which process holds it,
 * and shutdown can tell this process's closing connections from another process's (src/db/open-database.ts).
 */
export const APPLICATION_NAME = `agent-api:${process.pid}`;

export function createDb({ connectionString, poolMax = 10, onQuery }: DbOptions): Db {
  const pool = new pg.Pool({
    connectionString,
    application_name: APPLICATION_NAME,
    max: poolMax,
    // Fail fast when the database is unreachable so callers get a 503 instead of hanging.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection dropped by the server must not crash the process; the next query reports the outage.
  pool.on('error', () => {});
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  const db = new PrismaClient({ adapter, log: onQuery ? [{ emit: 'event', level: 'query' }] : [] });
  if (onQuery) db.$on('query' as never, onQuery);
  else pools.set(db, pool);
  return db;
}

/** The client's pg pool right now: connections checked out, idle, and callers waiting for one (for metrics). */
export function poolStats(db: Db): { inUse: number; idle: number; waiting: number } | undefined {
  const pool = pools.get(db);
  return pool && { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/**
 * Runs hand-written SQL. Outside a transaction it goes straight to the pg pool: the bench measured Prisma's raw-query
 * path at ~2.5 × the Node CPU of `pg` for the same query on the hottest reads (docs/performance.md). Inside a
 * transaction (or on a client that counts queries) it stays on Prisma, so it sees and joins the transaction.
 * BIGINT and COUNT come back as bigint from Prisma and as strings from pg: callers convert with Number().
 *
 * `prepareAs` names a server-side prepared statement (one per pool connection): PostgreSQL then parses and plans the
 * query once, not per call (products.get: 0.20 → 0.045 ms of backend CPU per call, measured). Only for one fixed
 * SQL text per name, and only where the plan does not depend on the values: after five calls PostgreSQL may switch
 * to a generic plan, which for a value-sensitive filter (a LIKE pattern, a skewed flag) can be the wrong one.
 */
export async function queryRows<T>(db: Db | Tx, sql: Prisma.Sql, opts: { prepareAs?: string } = {}): Promise<T[]> {
  const pool = pools.get(db);
  if (!pool) return (db as Tx).$queryRaw<T[]>(sql);
  const { rows } = await pool.query({ text: sql.text, values: sql.values, name: opts.prepareAs });
  return rows as T[];
}
