// Applies prisma/migrations/<name>/migration.sql the way `prisma migrate deploy` does, without Prisma's
// schema engine (an air-gapped machine cannot download it; docs/architecture.md). Rows in `_prisma_migrations` are written
// exactly like Prisma writes them, so `prisma migrate deploy` on a connected machine sees them as applied.
//
// Differences from Prisma, on purpose:
// - each migration runs in one transaction together with its `_prisma_migrations` row, so a failing
//   migration leaves nothing behind (Prisma would leave a failed row that needs `migrate resolve`);
// - the whole run holds Prisma's own advisory lock (the same key), so two processes starting at once, or
//   this and a `prisma migrate deploy`, never apply the same migration twice.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export type MigrateOptions = {
  log?: (msg: string) => void;
  /** Folder holding `<timestamp>_<name>/migration.sql`; defaults to the project's prisma/migrations. */
  migrationsDir?: string;
  /** How long to wait for another process holding the migration lock (default 120 s). */
  lockTimeoutMs?: number;
};

export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/** The key Prisma's schema engine uses for `pg_advisory_lock` during migrate (schema-engine, postgres flavour). */
const PRISMA_MIGRATE_ADVISORY_LOCK = 72707369;

/** Prisma's DDL for its bookkeeping table (schema-engine `create_migrations_table`, postgres). */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export type LocalMigration = { name: string; sql: string; checksum: string };

/** SHA-256 (hex) of the file's bytes: the value Prisma stores in `_prisma_migrations.checksum`. */
export function migrationChecksum(contents: string | Buffer): string {
  return createHash('sha256').update(contents).digest('hex');
}

/** The migration folders under `dir`, in the order Prisma applies them (lexicographic by name). */
export async function readMigrations(dir = DEFAULT_MIGRATIONS_DIR): Promise<LocalMigration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const migrations: LocalMigration[] = [];
  for (const name of names) {
    let bytes: Buffer;
    try {
      bytes = await readFile(path.join(dir, name, 'migration.sql'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // Prisma skips such folders too
      throw err;
    }
    migrations.push({ name, sql: bytes.toString('utf8'), checksum: migrationChecksum(bytes) });
  }
  return migrations;
}

type AppliedRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
};

/**
 * Applies every pending migration in order and returns the names applied (empty when up to date).
 * Throws, applying nothing, when an applied migration's file changed, or when Prisma recorded a failed
 * migration that still needs `prisma migrate resolve`.
 */
export async function migrate(connectionString: string, opts: MigrateOptions = {}): Promise<string[]> {
  const log = opts.log ?? (() => {});
  const local = await readMigrations(opts.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
  const client = await connectCreatingDatabase(connectionString, log);
  try {
    if (await upToDate(client, local, log)) return [];
    await acquireLock(client, opts.lockTimeoutMs ?? 120_000);
    try {
      // Applied by this process or Prisma; silence "relation already exists, skipping" notices.
      await client.query(`SET client_min_messages = warning`);
      await client.query(CREATE_MIGRATIONS_TABLE);
      await client.query(`RESET client_min_messages`);
      const { rows } = await client.query<AppliedRow>(
        `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
      );
      const pending = planPending(local, rows, log);
      const applied: string[] = [];
      for (const m of pending) {
        const started = Date.now();
        log(`applying migration ${m.name}`);
        await applyOne(client, m);
        applied.push(m.name);
        log(`applied migration ${m.name} in ${Date.now() - started} ms`);
      }
      if (applied.length === 0) log('database schema is up to date');
      return applied;
    } finally {
      await client.query(`SELECT pg_advisory_unlock($1)`, [PRISMA_MIGRATE_ADVISORY_LOCK]).catch(() => {});
    }
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The usual case, every start and every CLI command: all applied already. One read, without the lock, the
 * bookkeeping table's DDL and their seven round trips. Anything else — no table yet, something pending, a migration
 * another process has started and not finished — is left to the locked path, which waits for that process.
 */
async function upToDate(client: pg.Client, local: LocalMigration[], log: (msg: string) => void): Promise<boolean> {
  let rows: AppliedRow[];
  try {
    ({ rows } = await client.query<AppliedRow>(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`));
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return false; // undefined_table: a new database
    throw err;
  }
  if (rows.some((r) => r.finished_at === null && r.rolled_back_at === null)) return false;
  if (planPending(local, rows, log).length > 0) return false;
  log('database schema is up to date');
  return true;
}

function planPending(local: LocalMigration[], rows: AppliedRow[], log: (msg: string) => void): LocalMigration[] {
  const failed = rows.filter((r) => r.finished_at === null && r.rolled_back_at === null);
  if (failed.length > 0) {
    // Prisma's P3009: a migration started and never finished. Someone must look at the database.
    throw new Error(
      `migration(s) ${failed.map((r) => r.migration_name).join(', ')} failed earlier and were never finished; ` +
        'inspect the database, then mark them with `prisma migrate resolve --applied|--rolled-back <name>`',
    );
  }
  const applied = new Map<string, AppliedRow>();
  for (const r of rows) if (r.finished_at !== null && r.rolled_back_at === null) applied.set(r.migration_name, r);

  const localNames = new Set(local.map((m) => m.name));
  for (const name of applied.keys()) {
    if (!localNames.has(name)) log(`warning: migration ${name} is applied in the database but missing locally`);
  }
  const pending: LocalMigration[] = [];
  for (const m of local) {
    const row = applied.get(m.name);
    if (!row) {
      pending.push(m);
      continue;
    }
    if (!checksumMatches(m.sql, row.checksum)) {
      throw new Error(
        `migration ${m.name} was modified after it was applied (checksum ${row.checksum} in the database, ` +
          `${m.checksum} on disk); restore the original file and put changes in a new migration`,
      );
    }
  }
  return pending;
}

/** Like Prisma, accept a file whose only change is CRLF vs LF line endings (git autocrlf). */
function checksumMatches(sql: string, recorded: string): boolean {
  const r = recorded.toLowerCase();
  return (
    migrationChecksum(sql) === r ||
    migrationChecksum(sql.replace(/\r\n/g, '\n')) === r ||
    migrationChecksum(sql.replace(/\r?\n/g, '\r\n')) === r
  );
}

async function applyOne(client: pg.Client, m: LocalMigration): Promise<void> {
  await client.query('BEGIN');
  try {
    const id = randomUUID();
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), 0)`,
      [id, m.checksum, m.name],
    );
    // No parameters: pg sends it as one simple-protocol query, so multi-statement scripts are fine.
    await client.query(m.sql);
    // clock_timestamp(): now() would equal started_at inside this transaction.
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw new Error(`migration ${m.name} failed and was rolled back: ${(err as Error).message}`, { cause: err });
  }
}

async function acquireLock(client: pg.Client, timeoutMs: number): Promise<void> {
  // lock_timeout also bounds advisory-lock waits; a second process simply waits for the first to finish.
  await client.query(`SELECT set_config('lock_timeout', $1, false)`, [`${Math.max(1, Math.round(timeoutMs))}ms`]);
  try {
    await client.query(`SELECT pg_advisory_lock($1)`, [PRISMA_MIGRATE_ADVISORY_LOCK]);
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') {
      throw new Error(`timed out after ${timeoutMs} ms waiting for another process to finish migrating`, {
        cause: err,
      });
    }
    throw err;
  } finally {
    await client.query(`RESET lock_timeout`).catch(() => {});
  }
}

/** Connects; when the database itself does not exist yet, creates it first (as `prisma migrate deploy` does). */
async function connectCreatingDatabase(connectionString: string, log: (msg: string) => void): Promise<pg.Client> {
  const client = new pg.Client({ connectionString });
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.end().catch(() => {});
    if ((err as { code?: string }).code !== '3D000') throw err; // invalid_catalog_name
  }
  const url = new URL(connectionString);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
    log(`created database ${database}`);
  } catch (err) {
    // Created meanwhile by another process: 42P04, or 23505 when both inserted into pg_database at once.
    const code = (err as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw err;
  } finally {
    await admin.end().catch(() => {});
  }
  const retry = new pg.Client({ connectionString });
  await retry.connect();
  return retry;
}
