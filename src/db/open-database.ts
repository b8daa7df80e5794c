import pg from 'pg';
import type { Config } from '../config.ts';
import { APPLICATION_NAME } from './sql.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import { migrate } from './migrate.ts';

export type DatabaseHandle = { url: string; stop: () => Promise<void> };

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR, shared with any other process of this
 * checkout (server and CLI) that already started it. Pending migrations are applied either way.
 */
export async function openDatabase(config: Config, log: (msg: string) => void): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    await migrateAndLog(config.databaseUrl, log);
    return { url: config.databaseUrl, stop: async () => {} };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, runtimeDir: config.pgRuntimeDir, log });
  const handle: DatabaseHandle = {
    url: embedded.url,
    // The CLI may have started the server that `npm start` then reused: whoever started it leaves it running
    // while another process is still connected; the next process to start adopts and later stops it.
    stop: async () => {
      if (embedded.owned && (await otherClientsConnected(embedded.url))) {
        log('embedded PostgreSQL left running: another process is still connected');
        embedded.detach();
      } else {
        await embedded.stop();
      }
    },
  };
  try {
    await migrateAndLog(handle.url, log);
  } catch (err) {
    await embedded.stop();
    throw err;
  }
  return handle;
}

async function migrateAndLog(url: string, log: (msg: string) => void): Promise<void> {
  const applied = await migrate(url, { log });
  if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
}

async function otherClientsConnected(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      // This process's own pool has just been closed, but its backends can still be listed for a few
      // milliseconds while they exit: without the name filter the server always thought someone else was connected.
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name IS DISTINCT FROM $1`,
      [APPLICATION_NAME],
    );
    return rows[0].n > 0;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
