import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { assertNothingDeferred, heldConnection, heldConnectionAware, type DeferredWrite, type HeldConnection } from './held-connection.ts';
import { createPool, registerPool } from './sql.ts';

export type Db = PrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => …)`. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** Either: services take this so they run both on their own and inside a write's transaction. */
export type DbClient = Db | Tx;

export type DbOptions = { connectionString: string; poolMax?: number; onQuery?: () => void };

/** The pg pool under each client, for hand-written reads outside transactions (see queryRows). */
const pools = new WeakMap<object, pg.Pool>();

/** int8 (BIGINT, COUNT) as bigint, as Prisma returns it, so rows read by hand and by Prisma agree. */
const PG_TYPES = {
  getTypeParser: (oid: number, format?: string) => (oid === 20 ? BigInt : pg.types.getTypeParser(oid, format as 'text')),
};

export function createDb({ connectionString, poolMax = 10, onQuery }: DbOptions): Db {
  const pool = createPool({ connectionString, max: poolMax });
  const adapter = heldConnectionAware(new PrismaPg(pool, { disposeExternalPool: true }));
  const db = new PrismaClient({ adapter, log: onQuery ? [{ emit: 'event', level: 'query' }] : [] });
  if (onQuery) db.$on('query' as never, onQuery);
  else pools.set(db, pool);
  registerPool(db, pool);
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
 * write (inTransaction) it runs on the write's connection; on a client that counts queries it stays on Prisma.
 * BIGINT and COUNT come back as bigint either way.
 *
 * `prepareAs` names a server-side prepared statement (one per pool connection): PostgreSQL then parses and plans the
 * query once, not per call (products.get: 0.20 → 0.045 ms of backend CPU per call, measured). Only for one fixed
 * SQL text per name, and only where the plan does not depend on the values: after five calls PostgreSQL may switch
 * to a generic plan, which for a value-sensitive filter (a LIKE pattern, a skewed flag) can be the wrong one.
 *
 * `commits` marks a write's final statement: COMMIT is sent right behind it, without waiting for its answer, so
 * the write's row locks are released one round trip sooner. Whatever must hold for the write to commit is then
 * checked inside the statement (agent_api_expect: it fails, the transaction is aborted and COMMIT rolls it back),
 * since nothing can be decided in Node once it is sent; inTransaction reports how the transaction ended.
 */
export async function queryRows<T>(db: Db | Tx, sql: Prisma.Sql, opts: { prepareAs?: string; commits?: boolean } = {}): Promise<T[]> {
  const held = heldConnection.getStore();
  if (held) assertNothingDeferred(held);
  const conn = held?.client ?? pools.get(db);
  if (!conn) return (db as Tx).$queryRaw<T[]>(sql);
  const query = { text: sql.text, values: sql.values, name: opts.prepareAs, types: PG_TYPES };
  if (!held || !opts.commits) return (await conn.query(query)).rows as T[];
  // The statement and COMMIT leave in one write: the server reads both at once.
  const { stream } = held.client.connection;
  stream.cork();
  const result = conn.query(query);
  held.commit = pipelined(held.client.query('COMMIT'));
  stream.uncork();
  const { rows } = await result;
  return rows as T[];
}

/** A query in flight that is awaited later: its failure is handled there, not reported as unhandled meanwhile. */
function pipelined(query: Promise<pg.QueryResult>): Promise<pg.QueryResult> {
  query.catch(() => {});
  return query;
}

/** A write's opening statement (see inTransaction); one fixed SQL text per `prepareAs`. */
export type Opening = { sql: Prisma.Sql; prepareAs: string };

/** Prisma's defaults (2 s to get a connection) turned a queue of 20 racing checkouts on a pool of 5 into 500s. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

/**
 * Runs a write in one transaction: BEGIN on a pool connection, `fn`, COMMIT (ROLLBACK when it throws). `fn` gets the
 * client itself; inside it every query — Prisma's and queryRows' hand-written SQL alike — runs on the write's
 * connection (src/db/held-connection.ts). A plain pg transaction, not Prisma's interactive one: 0.07 against 0.33 ms
 * of CPU and 0.7 against 2–4 ms of wall time per transaction, measured (docs/performance.md, "Writes").
 * On a client that counts queries (tests) it is Prisma's `$transaction`, so every query is seen.
 *
 * `opening`, when given, is a statement the write depends on (the Idempotency-Key's claim), prepared under its name
 * and pipelined right after BEGIN; it answers nothing the write needs and raises when it does not hold, which
 * aborts the transaction. Its failure is then the write's: reported instead of whatever failed after it.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, opening?: Opening): Promise<T> {
  const pool = pools.get(db);
  if (!pool) return db.$transaction(async (tx) => {
    if (opening) await tx.$queryRaw(opening.sql);
    return fn(tx);
  }, TRANSACTION_OPTIONS);
  const client = await pool.connect();
  const held: HeldConnection = { client, savepoints: 0, deferred: [] };
  let broken: Error | undefined;
  // Pipelined: the handler's first statement goes out right behind BEGIN (and the opening), in the same write when
  // the handler sends it before the event loop turns; the connection runs them in order.
  const { stream } = client.connection;
  stream.cork();
  held.begun = pipelined(client.query(BEGIN_WRITE));
  const opened = opening && pipelined(client.query({ text: opening.sql.text, values: opening.sql.values, name: opening.prepareAs, types: PG_TYPES }));
  setImmediate(() => stream.uncork());
  try {
    const result = await heldConnection.run(held, () => fn(db));
    // A deferred write nobody took into a final statement would be lost: refuse to commit without it.
    if (!held.commit) assertNothingDeferred(held);
    await held.begun;
    await opened;
    const ended = await (held.commit ?? client.query('COMMIT'));
    // COMMIT of a transaction a failed statement aborted answers ROLLBACK, without an error of its own.
    if (ended.command !== 'COMMIT') throw new Error(`the write's transaction ended with ${ended.command}, not COMMIT`);
    return result;
  } catch (err) {
    // Once COMMIT is sent the transaction ends with it (a ROLLBACK when a statement failed): wait for that instead.
    await (held.commit ?? client.query('ROLLBACK')).catch((e: Error) => { broken = e; });
    const openingFailure = opened && (await opened.then(() => undefined, (e: unknown) => e));
    throw openingFailure ?? err;
  } finally {
    // A connection that cannot even roll back is dropped, not given back to the pool.
    client.release(broken);
  }
}

/**
 * A write transaction's first round trip. Its prepared statements run on their generic plans: a write's final
 * statement (audit rows, events and the idempotency record from unnest()ed arrays) always looked dearer generic,
 * since a custom plan sees each array's length, so PostgreSQL planned it again on every write; forced generic,
 * products.update took 0.56 -> 0.41 ms of database CPU and cart.add_item 0.96 -> 0.77 (docs/performance.md,
 * Writes). Writes look rows up by key, where a generic plan is as good as a custom one; reads are not affected.
 */
const BEGIN_WRITE = 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan';

/**
 * A write statement whose result the handler does not need (an insert it already knows the rows of), deferred to
 * the write's final statement: its CTEs join recordWrite's one statement (src/registry/idempotency.ts), which saves
 * a round trip while the write holds its row locks. Only for the handler's last statement: a query on the
 * connection after it throws, since it would run before the deferred write. `ctes` are `name AS (…)` entries of a
 * WITH clause; `name` names the prepared statement they are part of (fixed SQL text per name; none when `prepared`
 * is false). On a client that counts queries (no held connection) it runs at once.
 */
export async function deferWrite(db: Db | Tx, write: DeferredWrite): Promise<void> {
  const held = heldConnection.getStore();
  if (held) held.deferred.push(write);
  else await queryRows(db, Prisma.sql`WITH ${write.ctes} SELECT 1`);
}

/** The writes deferred so far in this transaction, handed to its final statement (which then owns them). */
export function takeDeferredWrites(): DeferredWrite[] {
  const held = heldConnection.getStore();
  if (!held) return [];
  const { deferred } = held;
  held.deferred = [];
  return deferred;
}
