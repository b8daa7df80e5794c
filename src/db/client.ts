import { AsyncLocalStorage } from 'node:async_hooks';
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

/** The pg connection under each transaction client opened by inTransaction(), for hand-written SQL inside it. */
const txConnections = new WeakMap<object, pg.PoolClient>();

/** Set by inTransaction() around `$transaction`: receives the connection Prisma takes from the pool for it. */
const connectionSlot = new AsyncLocalStorage<{ client?: pg.PoolClient }>();

/**
 * A pg pool that hands the first connection checked out (promise-style) inside inTransaction() to its slot: that is the
 * one Prisma's adapter starts the interactive transaction on. Everything else is pg.Pool unchanged.
 */
class TransactionAwarePool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void) {
    if (callback) return super.connect(callback);
    const slot = connectionSlot.getStore();
    if (!slot || slot.client) return super.connect();
    return super.connect().then((client) => {
      slot.client = client;
      return client;
    });
  }
}

/** int8 (BIGINT, COUNT) as bigint, as Prisma returns it, so rows read by hand and by Prisma agree. */
const PG_TYPES = {
  getTypeParser: (oid: number, format?: string) => (oid === 20 ? BigInt : pg.types.getTypeParser(oid, format as 'text')),
};

/**
 * Every connection of this process carries this name in pg_stat_activity: operators see which process holds it,
 * and shutdown can tell this process's closing connections from another process's (src/db/open-database.ts).
 */
export const APPLICATION_NAME = `agent-api:${process.pid}`;

export function createDb({ connectionString, poolMax = 10, onQuery }: DbOptions): Db {
  const pool = new TransactionAwarePool({
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
 * transaction opened by inTransaction() it runs on that transaction's connection; inside any other transaction (or
 * on a client that counts queries) it stays on Prisma, which joins the transaction. BIGINT and COUNT come back as
 * bigint either way.
 *
 * `prepareAs` names a server-side prepared statement (one per pool connection): PostgreSQL then parses and plans the
 * query once, not per call (products.get: 0.20 → 0.045 ms of backend CPU per call, measured). Only for one fixed
 * SQL text per name, and only where the plan does not depend on the values: after five calls PostgreSQL may switch
 * to a generic plan, which for a value-sensitive filter (a LIKE pattern, a skewed flag) can be the wrong one.
 */
export async function queryRows<T>(db: Db | Tx, sql: Prisma.Sql, opts: { prepareAs?: string } = {}): Promise<T[]> {
  const conn = pools.get(db) ?? txConnections.get(db);
  if (!conn) return (db as Tx).$queryRaw<T[]>(sql);
  const { rows } = await conn.query({ text: sql.text, values: sql.values, name: opts.prepareAs, types: PG_TYPES });
  return rows as T[];
}

/** Prisma's defaults (2 s to get a connection) turned a queue of 20 racing checkouts on a pool of 5 into 500s. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

/**
 * `db.$transaction(fn)`, plus: queryRows(tx, …) inside it runs straight on the transaction's pg connection instead
 * of through Prisma's raw-query path (the write path's hand-written SQL; docs/performance.md). Prisma still begins,
 * commits and rolls back, and Prisma calls on `tx` run on the same connection, in the same transaction.
 * Waiting for a pool connection is bounded by the pool's own timeout (503), not by a shorter Prisma default.
 */
export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const slot: { client?: pg.PoolClient } = {};
  return connectionSlot.run(slot, () =>
    db.$transaction(async (tx) => {
      // Not on a client that counts queries (tests): its queries must all pass through Prisma to be counted.
      if (slot.client && pools.has(db)) txConnections.set(tx, slot.client);
      return fn(tx);
    }, TRANSACTION_OPTIONS),
  );
}
