import type { Db } from '../db/client.ts';
import { paint } from './output.ts';

/**
 * Opens the database (DATABASE_URL, else the embedded one under DATA_DIR, migrated either way) for one command and
 * closes it afterwards. Imported lazily so that --help and usage errors answer without loading Prisma or starting
 * PostgreSQL. Progress (starting the embedded server, applying migrations) is shown only to a person at a terminal,
 * on stderr, so that --json output stays one JSON document and a script's stderr holds nothing but an error line.
 */
export async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { openDatabase }, { createDb }] = await Promise.all([
    import('../config.ts'),
    import('../db/open-database.ts'),
    import('../db/client.ts'),
  ]);
  const progress = (msg: string) => {
    if (process.stderr.isTTY) process.stderr.write(`${paint('dim', `[db] ${msg}`, process.stderr)}\n`);
  };
  const database = await openDatabase(loadConfig(), progress);
  const db = createDb({ connectionString: database.url, poolMax: 2 });
  try {
    return await work(db);
  } finally {
    await db.$disconnect();
    await database.stop();
  }
}
