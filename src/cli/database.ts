import type { Db } from '../db/client.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { paint } from './output.ts';

/**
 * Opens the database (DATABASE_URL, else the embedded one under DATA_DIR, migrated either way) for one command and
 * closes it afterwards. Imported lazily so that --help and usage errors answer without loading Prisma or starting
 * PostgreSQL. Progress (starting the embedded server, applying migrations) is shown only to a person at a terminal,
 * on stderr, so that --json output stays one JSON document and a script's stderr holds nothing but an error line.
 */
export async function withDatabase<T>(work: (db: Db, secrets: SecretBox) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { openDatabase }, { createDb }, { openSecretBox }] = await Promise.all([
    import('../config.ts'),
    import('../db/open-database.ts'),
    import('../db/client.ts'),
    import('../secrets/key-file.ts'),
  ]);
  const progress = (msg: string) => {
    if (process.stderr.isTTY) process.stderr.write(`${paint('dim', `[db] ${msg}`, process.stderr)}\n`);
  };
  const config = loadConfig();
  // The same key as the server's (SECRETS_KEY, or the one generated under DATA_DIR), so what the CLI seals it can open.
  const secrets = await openSecretBox(config);
  const database = await openDatabase(config, progress);
  const db = createDb({ connectionString: database.url, poolMax: 2 });
  try {
    return await work(db, secrets);
  } finally {
    await db.$disconnect();
    await database.stop();
  }
}
