import { AsyncLocalStorage } from 'node:async_hooks';
import type { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import type { Prisma } from '../generated/prisma/client.ts';

type Adapter = Awaited<ReturnType<PrismaPg['connect']>>;
type Transaction = Awaited<ReturnType<Adapter['startTransaction']>>;
type Query = Parameters<Adapter['queryRaw']>[0];

/**
 * A write's transaction: the pg connection it holds from BEGIN to COMMIT (see inTransaction in client.ts), the
 * write statements deferred to its final statement (deferWrite in client.ts), and BEGIN and COMMIT while they are
 * in flight: both are pipelined (BEGIN ahead of the first statement, COMMIT behind the final one), so the write
 * waits for neither on its own.
 */
export type HeldConnection = {
  client: pg.PoolClient; adapter?: Adapter; savepoints: number; deferred: DeferredWrite[];
  begun?: Promise<pg.QueryResult>; commit?: Promise<pg.QueryResult>;
};

/**
 * A write statement whose CTEs join the write's final statement instead of costing a round trip (deferWrite).
 * `prepared: false` when its plan depends on the values, so the final statement is then planned per call.
 */
export type DeferredWrite = { name: string; ctes: Prisma.Sql; prepared?: boolean };

/**
 * A deferred write runs with the write's final statement, so nothing may query in between (it would run first);
 * after the final statement COMMIT is on its way, so nothing may query at all.
 */
export function assertNothingDeferred(held: HeldConnection): void {
  if (held.deferred.length > 0) throw new Error(`a query ran after the deferred write ${held.deferred.map((d) => d.name).join(', ')}: defer only the last write of a handler`);
  if (held.commit) throw new Error('a query ran after the final statement of its write, behind its COMMIT');
}

/** The connection of the write running in this async context, if any. */
export const heldConnection = new AsyncLocalStorage<HeldConnection>();

const statement = (sql: string): Query => ({ sql, args: [], argTypes: [] });

/**
 * Prisma's pg adapter, bound to the held connection: the adapter's own query code (parameter mapping, type parsing)
 * run with that connection in place of the pool it was built on.
 */
function boundTo(adapter: Adapter, held: HeldConnection): Adapter {
  held.adapter ??= Object.assign(Object.create(adapter) as Adapter, { client: held.client });
  return held.adapter;
}

/**
 * A transaction Prisma opens inside a write's (for a nested create, say) is a savepoint on the held connection:
 * it commits or rolls back its own part, and the write's transaction decides about the whole.
 */
async function savepoint(bound: Adapter, held: HeldConnection): Promise<Transaction> {
  const name = `prisma_${++held.savepoints}`;
  await bound.executeRaw(statement(`SAVEPOINT ${name}`));
  return {
    provider: bound.provider,
    adapterName: bound.adapterName,
    // Prisma then sends no COMMIT/ROLLBACK of its own; commit() and rollback() below are the whole of it.
    options: { usePhantomQuery: true },
    queryRaw: (q) => bound.queryRaw(q),
    executeRaw: (q) => bound.executeRaw(q),
    commit: async () => { await bound.executeRaw(statement(`RELEASE SAVEPOINT ${name}`)); },
    rollback: async () => { await bound.executeRaw(statement(`ROLLBACK TO SAVEPOINT ${name}`)); },
  };
}

/**
 * Prisma's pg adapter factory, made aware of the held connection: inside a write, every Prisma query runs on the
 * write's own connection and so inside its transaction; everywhere else the adapter is unchanged. This lets a write
 * be a plain pg transaction (BEGIN … COMMIT) whose hand-written SQL and Prisma calls share one connection, instead
 * of Prisma's interactive transaction, which measured 4–5 × the CPU and wall time of the same transaction on pg
 * (docs/performance.md, "Writes").
 */
export function heldConnectionAware(factory: PrismaPg): PrismaPg {
  return Object.assign(Object.create(factory) as PrismaPg, {
    connect: async (): Promise<Adapter> => {
      const adapter = await factory.connect();
      return Object.assign(Object.create(adapter) as Adapter, {
        queryRaw: (q: Query) => {
          const held = heldConnection.getStore();
          if (held) assertNothingDeferred(held);
          return held ? boundTo(adapter, held).queryRaw(q) : adapter.queryRaw(q);
        },
        executeRaw: (q: Query) => {
          const held = heldConnection.getStore();
          if (held) assertNothingDeferred(held);
          return held ? boundTo(adapter, held).executeRaw(q) : adapter.executeRaw(q);
        },
        startTransaction: (isolationLevel?: Parameters<Adapter['startTransaction']>[0]) => {
          const held = heldConnection.getStore();
          return held ? savepoint(boundTo(adapter, held), held) : adapter.startTransaction(isolationLevel);
        },
      });
    },
  });
}
