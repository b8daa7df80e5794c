// Starting the postmaster on a free port and waiting until it accepts connections.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants as fsConstants, existsSync, openSync, closeSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { canConnect, HOST } from './connect.ts';
import type { Ids } from './postgres-user.ts';
import { readFrom, sleep } from './processes.ts';
import { readPostmasterPid } from './running.ts';

export type StartArgs = {
  dataDir: string;
  postgres: string;
  pgDir: string;
  ids: Ids;
  password: string;
  preferredPort?: number;
  settings?: Record<string, string>;
  deadline: number;
  log: (m: string) => void;
};

export async function startServer(a: StartArgs): Promise<{ port: number; pid: number; child: ChildProcess }> {
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
      child = spawn(a.postgres, args, {
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
