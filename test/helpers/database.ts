// A fresh, migrated database per caller, cloned from the run's template (see global-setup.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDb, type Db } from '../../src/db/client.ts';
import type { Prisma } from '../../src/generated/prisma/client.ts';

export type TestDatabase = {
  /** Connection URL of the new database. */
  url: string;
  /** Prisma client on it (pool of 5 by default: files run in parallel against one server). */
  db: Db;
  /** Disconnects `db` and drops the database (FORCE: also ends connections the test left open). */
  drop: () => Promise<void>;
};

/** CREATE DATABASE <run prefix>_<random> TEMPLATE <migrated template>: ~50 ms instead of migrating. */
export async function createTestDatabase(poolMax = 5): Promise<TestDatabase> {
  const name = await createEmptyTestDatabase({ template: inject('dbTemplate') });
  const url = testDatabaseUrl(name);
  const db = createDb({ connectionString: url, poolMax });
  let dropped: Promise<void> | undefined;
  return {
    url,
    db,
    drop: () => (dropped ??= (async () => {
      await db.$disconnect().catch(() => {});
      await dropTestDatabase(name);
    })()),
  };
}

/**
 * A new database named with this run's prefix (so global teardown drops it if the test does not):
 * a clone of `template`, or an empty one from template0 (for tests of the migrations themselves).
 */
export async function createEmptyTestDatabase(opts: { template?: string } = {}): Promise<string> {
  const name = `${inject('dbPrefix')}_${randomBytes(5).toString('hex')}`;
  const template = opts.template ?? 'template0';
  await admin(async (c) => {
    await c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`);
  });
  return name;
}

export async function dropTestDatabase(name: string): Promise<void> {
  if (!name.startsWith(`${inject('dbPrefix')}_`)) throw new Error(`refusing to drop ${name}: not made by this run`);
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  });
}

export function testDatabaseUrl(name: string): string {
  const url = new URL(inject('dbServerUrl'));
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

async function admin(fn: (c: pg.Client) => Promise<void>) {
  const client = new pg.Client({ connectionString: inject('dbServerUrl') });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Empties the tables of these models in one TRUNCATE, together with every table that references them (CASCADE: e.g.
 * "Order" takes "OrderItem" along). The statement-level trigger keeps category product counts right.
 */
export async function resetTables(db: Db, ...models: Prisma.ModelName[]): Promise<void> {
  await db.$executeRawUnsafe(`TRUNCATE ${models.map((m) => pg.escapeIdentifier(m)).join(', ')} CASCADE`);
}

/**
 * Waits until another session of `client`'s database waits for a lock (one that `client`'s open transaction holds),
 * so a test can commit that transaction exactly while the app's statement is blocked on it.
 */
export async function untilBlockedOn(client: pg.Client, what: string): Promise<void> {
  for (let waited = 0; ; waited += 10) {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    if (rows[0].n > 0) return;
    if (waited > 5_000) throw new Error(`${what} never waited for the locked rows`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

