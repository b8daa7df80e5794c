// Runs once per `vitest run`, in the main process. Resolves the PostgreSQL server (DATABASE_URL's server,
// else an embedded one under .data/test-pg, separate from the dev cluster under .data/pg), creates ONE
// uniquely named template database, migrates it, and hands its name to the test files through
// `provide`/`inject`. test/helpers/database.ts clones it per test (CREATE DATABASE … TEMPLATE, fast).
// Teardown drops the template and every database whose name starts with this run's prefix, and nothing else.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A URL of the test server; its database is used only to run CREATE/DROP DATABASE. */
    dbServerUrl: string;
    /** The migrated template database every test database is cloned from. */
    dbTemplate: string;
    /** Every database this run creates starts with `${dbPrefix}_`. */
    dbPrefix: string;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const log = process.env.TEST_DB_DEBUG ? (m: string) => console.log(`[test-db] ${m}`) : () => {};
  let serverUrl = process.env.DATABASE_URL;
  /** At teardown: the embedded server again (null with DATABASE_URL), to drop our databases and maybe stop it. */
  let reacquire = async (): Promise<EmbeddedPostgres | null> => null;
  if (!serverUrl) {
    const dataDir = path.join(ROOT, '.data', 'test-pg');
    const start = () =>
      startEmbeddedPostgres({
        dataDir,
        log,
        database: 'agent_api_test',
        // Disposable data: trade crash safety for speed (CREATE DATABASE and commits skip fsync).
        settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' },
      });
    const embedded = await start();
    serverUrl = embedded.url;
    // Another `vitest run` may share this server (it got owned: false). If its owner has exited meanwhile,
    // start() adopts the orphan (owned: true), or starts it again so our databases can still be dropped.
    reacquire = async () => (embedded.owned ? embedded : await start());
  }

  // Short and unique per run: several runs (or machines) may share one server.
  const prefix = `agent_api_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const template = `${prefix}_tpl`;
  await adminQuery(serverUrl, `CREATE DATABASE ${pg.escapeIdentifier(template)} TEMPLATE template0`);
  await migrate(withDatabase(serverUrl, template), { log });

  project.provide('dbServerUrl', serverUrl);
  project.provide('dbTemplate', template);
  project.provide('dbPrefix', prefix);
  log(`template ${template} ready in ${Date.now() - started} ms`);

  return async () => {
    const server = await reacquire();
    const url = server?.url ?? serverUrl;
    try {
      await dropRunDatabases(url, prefix);
    } finally {
      // Stop only an embedded server that is ours and that no other test run is still using.
      if (server?.owned) {
        if (await usedByOtherRuns(url, prefix)) {
          // Keep it running past our exit; the last run to finish adopts and stops it.
          server.detach();
          log('embedded PostgreSQL left running: another test run is using it');
        } else {
          await server.stop();
        }
      }
    }
  };
}

async function dropRunDatabases(serverUrl: string, prefix: string) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    // Exact prefix match (no LIKE: `_` would be a wildcard).
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE left(datname, length($1)) = $1`,
      [`${prefix}_`],
    );
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}

/**
 * Whether another test run still uses this (embedded, local) server: a client connection other than ours,
 * or the template database of another live run (it exists from that run's setup to its teardown, also while
 * the run happens to hold no connection).
 */
async function usedByOtherRuns(serverUrl: string, prefix: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    if (rows[0].n > 0) return true;
    const templates = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname ~ '^agent_api_test_[0-9]+_[0-9a-f]+_tpl$' AND datname <> $1`,
      [`${prefix}_tpl`],
    );
    return templates.rows.some(({ datname }) => isAlive(Number(datname.split('_')[3])));
  } finally {
    await client.end();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function adminQuery(serverUrl: string, sql: string) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}
