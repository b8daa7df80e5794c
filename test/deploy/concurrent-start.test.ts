// Three instances started at the same moment on one empty database (a first deployment, or a scaled-out rollout):
// one of them applies the migrations while the others wait on the migration lock, and then all three serve.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrate.ts';
import { createEmptyTestDatabase, dropTestDatabase, testDatabaseUrl } from '../helpers/database.ts';
import { startServerProcess, type ServerProcess } from '../helpers/processes.ts';

const servers: ServerProcess[] = [];
let name: string | undefined;
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.exited));
  if (name) await dropTestDatabase(name);
});

describe('concurrent start on an empty database', () => {
  it('migrates once and all three instances serve', { timeout: 120_000 }, async () => {
    name = await createEmptyTestDatabase();
    const url = testDatabaseUrl(name);
    const started = await Promise.all(
      [1, 2, 3].map(() => startServerProcess(['--import', 'tsx', 'src/server.ts'], { DATABASE_URL: url, REDIS_URL: undefined }, 90_000)),
    );
    servers.push(...started);

    const local = (await readMigrations()).map((m) => m.name);
    const applying = (s: ServerProcess) => local.filter((m) => s.output().includes(`applying migration ${m}`)).length;
    // Exactly one instance applied all of them; the others found the schema up to date once the lock was free.
    expect(started.map(applying).sort()).toEqual([0, 0, local.length]);
    expect(started.filter((s) => s.output().includes('database schema is up to date'))).toHaveLength(2);

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`);
      expect(rows.map((r) => r.migration_name)).toEqual(local);
    } finally {
      await client.end();
    }

    for (const s of started) {
      expect((await fetch(`http://127.0.0.1:${s.port}/readyz`)).status).toBe(200);
      const res = await fetch(`http://127.0.0.1:${s.port}/api/v1/tools/categories.list`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
      });
      expect(res.status).toBe(200);
    }
    for (const s of started) s.child.kill('SIGTERM');
    expect(await Promise.all(started.map((s) => s.exited))).toEqual(Array(3).fill({ code: 0, signal: null }));
  });
});
