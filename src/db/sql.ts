// Hand-written SQL on pg alone, for the services the operator CLI shares with the server (keys, grants, stored
// secrets, signing keys). The CLI opens a pg pool and never loads Prisma: Prisma's first query costs ~0.45 s of
// WebAssembly start-up in every process, more than a command may take (docs/operator.md, "How fast it answers").
// The server passes its Prisma client instead; these services then run on that client's own pg pool. Nothing here
// imports Prisma's runtime, only its types.
import pg from 'pg';
import type { Db } from './client.ts';
import { assertNothingDeferred, heldConnection } from './held-connection.ts';

/**
 * Every connection of this process carries this name in pg_stat_activity: operators see which process holds it,
 * and shutdown can tell this process's closing connections from another process's (src/db/open-database.ts).
 */
export const APPLICATION_NAME = `agent-api:${process.pid}`;

/** What a service's SQL runs on: the server's client (createDb) or a pool of the CLI's own (createPool). */
export type SqlSource = Db | pg.Pool;

/** A connection inside a transaction (sqlTransaction), or a pool outside one: both answer `query`. */
export type Sql = pg.Pool | pg.PoolClient;

/** The pg pool under each client createDb made, counting clients included (their SQL here is simply not counted). */
const poolsOf = new WeakMap<Db, pg.Pool>();

export function registerPool(db: Db, pool: pg.Pool): void {
  poolsOf.set(db, pool);
}

/** A pool with the service's connection settings; createDb builds Prisma's adapter on one of these. */
export function createPool({ connectionString, max }: { connectionString: string; max: number }): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    application_name: APPLICATION_NAME,
    max,
    // A write sends BEGIN ahead of its first statement and COMMIT behind its final one without waiting for either
    // (inTransaction, queryRows' `commits`). Elsewhere each caller awaits its query, so nothing else changes.
    pipeline: true,
    // Fail fast when the database is unreachable so callers get a 503 instead of hanging.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection dropped by the server must not crash the process; the next query reports the outage.
  pool.on('error', () => {});
  // Nor one dropped while checked out with no query in flight (between a write's pipelined statements): pg-pool
  // listens only while a connection is idle, and pg then emits the error on the connection itself. Its queries are
  // rejected with it all the same, and the pool discards the connection when it comes back.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * Where `source`'s SQL runs: inside a write of the server (inTransaction in client.ts) on that write's connection,
 * so it is part of the write; otherwise on the pool.
 */
export function sqlOf(source: SqlSource): Sql {
  const held = heldConnection.getStore();
  if (held) {
    assertNothingDeferred(held);
    return held.client;
  }
  if (source instanceof pg.Pool) return source;
  const pool = poolsOf.get(source);
  if (!pool) throw new Error('sqlOf: a client made by createDb is needed (a Prisma transaction client has no pg connection of its own)');
  return pool;
}

/**
 * Runs `fn` in one transaction on a connection of its own (BEGIN, fn, COMMIT; ROLLBACK when it throws). Inside a
 * write of the server it joins that write's transaction instead, which then decides about the whole.
 */
export async function sqlTransaction<T>(source: SqlSource, fn: (tx: Sql) => Promise<T>): Promise<T> {
  const sql = sqlOf(source);
  if (!(sql instanceof pg.Pool)) return fn(sql);
  const client = await sql.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => {
      broken = e;
    });
    throw err;
  } finally {
    // A connection that cannot even roll back is dropped, not given back to the pool.
    client.release(broken);
  }
}
