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
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
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
  let stopEmbedded = async () => {};
  if (!serverUrl) {
    const embedded = await startEmbeddedPostgres({
      dataDir: path.join(ROOT, '.data', 'test-pg'),
      log,
      database: 'agent_api_test',
      // Disposable data: trade crash safety for speed (CREATE DATABASE and commits skip fsync).
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' },
    });
    serverUrl = embedded.url;
    stopEmbedded = embedded.stop;
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
    try {
      await dropRunDatabases(serverUrl, prefix);
    } finally {
      await stopEmbedded();
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
