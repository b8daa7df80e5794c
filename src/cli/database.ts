import type pg from 'pg';
import type { Db } from '../db/client.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { paint } from './output.ts';

/**
 * Opens the database (DATABASE_URL, else the embedded one under DATA_DIR, migrated either way) for one command and
 * closes it afterwards, with the same secrets key as the server's (SECRETS_KEY, or the one generated under
 * DATA_DIR), so what the CLI seals it can open. Imported lazily so that --help and usage errors answer without
 * loading pg or starting PostgreSQL. Progress (starting the embedded server, applying migrations) is shown only to
 * a person at a terminal, on stderr, so that --json output stays one JSON document and a script's stderr holds
 * nothing but an error line.
 */
async function withOpenDatabase<T>(work: (url: string, secrets: SecretBox) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { openDatabase }, { openSecretBox }] = await Promise.all([
    import('../config.ts'),
    import('../db/open-database.ts'),
    import('../secrets/key-file.ts'),
  ]);
  const progress = (msg: string) => {
    if (process.stderr.isTTY) process.stderr.write(`${paint('dim', `[db] ${msg}`, process.stderr)}\n`);
  };
  const config = loadConfig();
  const secrets = await openSecretBox(config);
  const database = await openDatabase(config, progress);
  try {
    return await work(database.url, secrets);
  } finally {
    await database.stop();
  }
}

/**
 * The everyday commands (keys, grants, oauth, secrets, ucp): a pg pool and no Prisma, whose first query alone costs
 * ~0.45 s (docs/operator.md, "How fast it answers"). Their services take it in place of the server's client.
 */
export async function withDatabase<T>(work: (sql: pg.Pool, secrets: SecretBox) => Promise<T>): Promise<T> {
  const { createPool } = await import('../db/sql.ts');
  return withOpenDatabase(async (url, secrets) => {
    const pool = createPool({ connectionString: url, max: 2 });
    try {
      return await work(pool, secrets);
    } finally {
      await pool.end();
    }
  });
}

/** `seed`, whose services write through Prisma's client. */
export async function withPrisma<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const { createDb } = await import('../db/client.ts');
  return withOpenDatabase(async (url) => {
    const db = createDb({ connectionString: url, poolMax: 2 });
    try {
      return await work(db);
    } finally {
      await db.$disconnect();
    }
  });
}
