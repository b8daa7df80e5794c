// As root the server runs as the `postgres` user (postgres-user.ts), which must reach the binaries and the cluster.
// A project inside a folder other users cannot enter (Debian's /root is 0700) is out of its reach. Then, rather than
// fail, the binaries are copied once per version and the cluster is kept under the runtime folder (PG_RUNTIME_DIR,
// /var/lib/agent-api by default, created enterable), with `<dataDir>/pg` a symlink to it so the layout reads the same.
// Only when the runtime folder is out of reach too does the start stop, with one line naming the cause and the fix.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SetupError } from '../../setup-error.ts';
import { binaries, type Binaries } from './cluster.ts';
import { USER } from './connect.ts';
import type { Ids } from './postgres-user.ts';

export const DEFAULT_PG_RUNTIME_DIR = '/var/lib/agent-api';

export type Placement = { pgDir: string; bin: Binaries };

export async function placeForPostgres(dataDir: string, runtimeDir: string, ids: Ids, log: (m: string) => void): Promise<Placement> {
  const bin = await binaries();
  const pgDir = path.join(dataDir, 'pg');
  if (ids.uid === undefined) return { pgDir, bin };
  const binOk = canReach(ids, bin.postgres);
  const dataOk = canReach(ids, dataDir);
  if (binOk && dataOk) return { pgDir, bin };

  await fs.mkdir(runtimeDir, { recursive: true, mode: 0o755 });
  if (!canReach(ids, runtimeDir)) {
    const needed = binOk ? dataDir : path.dirname(path.dirname(bin.postgres));
    throw new SetupError(
      `The embedded PostgreSQL runs as the system user "${USER}", which cannot reach ${needed} nor PG_RUNTIME_DIR ${runtimeDir} ` +
        `(${blockingFolder(ids, runtimeDir)}): set PG_RUNTIME_DIR to a folder it can enter, or DATABASE_URL to a PostgreSQL server of your own.`,
    );
  }
  return {
    bin: binOk ? bin : await copiedBinaries(bin, runtimeDir, log),
    pgDir: dataOk ? pgDir : await relocatedCluster(dataDir, runtimeDir, ids, log),
  };
}

/** `test -x <path>` run as the postgres user: the kernel's own answer, ancestors' permissions included. */
function canReach(ids: Ids, target: string): boolean {
  return spawnSync('test', ['-x', target], { uid: ids.uid, gid: ids.gid, stdio: 'ignore' }).status === 0;
}

/** Why the postgres user cannot reach `target`: the outermost folder on the way that it cannot enter, and its mode. */
function blockingFolder(ids: Ids, target: string): string {
  const parts = path.resolve(target).split(path.sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const dir = path.sep + parts.slice(0, i).join(path.sep);
    if (!canReach(ids, dir)) return `${dir} has mode ${(statSync(dir).mode & 0o777).toString(8).padStart(4, '0')}`;
  }
  return `${target} is not enterable`;
}

/** The package's binaries, libraries and share files copied once per version under the runtime folder. */
async function copiedBinaries(bin: Binaries, runtimeDir: string, log: (m: string) => void): Promise<Binaries> {
  const nativeDir = path.dirname(path.dirname(bin.postgres));
  const { version } = JSON.parse(readFileSync(path.join(path.dirname(nativeDir), 'package.json'), 'utf8')) as { version: string };
  const target = path.join(runtimeDir, `postgres-${version}`);
  const relocated = (dir: string): Binaries => ({ initdb: path.join(dir, 'bin', 'initdb'), postgres: path.join(dir, 'bin', 'postgres') });
  if (existsSync(target)) return relocated(target);
  // Copied aside, then renamed: a half-made copy is never used, and of two processes copying at once one wins.
  const tmp = `${target}.copy-${process.pid}-${randomBytes(4).toString('hex')}`;
  log(`embedded PostgreSQL: copying its binaries to ${target} (the "${USER}" user cannot reach ${nativeDir})`);
  await fs.cp(nativeDir, tmp, { recursive: true, verbatimSymlinks: true });
  await fs.chmod(tmp, 0o755);
  try {
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rm(tmp, { recursive: true, force: true });
    if (!existsSync(target)) throw err;
  }
  return relocated(target);
}

/**
 * The cluster's folder under the runtime folder, one per data directory (named after its path), with
 * `<dataDir>/pg` a symlink to it. Lock, state and log stay in the data directory: only root reads them.
 */
async function relocatedCluster(dataDir: string, runtimeDir: string, ids: Ids, log: (m: string) => void): Promise<string> {
  const link = path.join(dataDir, 'pg');
  const home = path.join(runtimeDir, 'clusters', `${path.basename(dataDir).replace(/^\.+/, '')}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
  const pgDir = path.join(home, 'pg');
  const existing = await fs.lstat(link).catch(() => null);
  if (existing && !existing.isSymbolicLink()) {
    throw new SetupError(
      `The embedded PostgreSQL runs as the system user "${USER}", which cannot reach its cluster ${link} ` +
        `(${blockingFolder(ids, dataDir)}): let it in (chmod o+x on that folder), or move the cluster to ${pgDir} and leave a symlink at ${link}.`,
    );
  }
  await fs.mkdir(home, { recursive: true, mode: 0o755 });
  if (!existing) {
    await fs.symlink(pgDir, link);
    log(`embedded PostgreSQL: the "${USER}" user cannot reach ${dataDir}; its cluster is kept in ${pgDir} (linked from ${link})`);
  }
  return pgDir;
}
