import type { Config } from '../config.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import { migrate } from './migrate.ts';

export type DatabaseHandle = { url: string; stop: () => Promise<void> };

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR, shared with any other process of this
 * checkout (server and CLI) that already started it. Pending migrations are applied either way.
 */
export async function openDatabase(config: Config, log: (msg: string) => void): Promise<DatabaseHandle> {
  const handle: DatabaseHandle = config.databaseUrl
    ? { url: config.databaseUrl, stop: async () => {} }
    : await startEmbeddedPostgres({ dataDir: config.dataDir, log });
  try {
    const applied = await migrate(handle.url, { log });
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return handle;
}
