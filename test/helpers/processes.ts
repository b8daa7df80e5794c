// Helpers for tests that run the server or an embedded PostgreSQL as separate processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** The pid of the embedded PostgreSQL under `dataDir` (src/db/embedded.ts keeps its cluster in `<dataDir>/pg`). */
export function postmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : null;
}

/** Running and not a zombie. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

export type ServerProcess = {
  child: ChildProcess;
  port: number;
  /** Everything the server printed so far (stdout and stderr). */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/**
 * Runs the server as its own process (`node <args>` in the repository, or `<command> <args>`; NODE_ENV=production on
 * 127.0.0.1 and a free port unless env.PORT names one, with PUBLIC_BASE_URL, which production requires, naming that
 * address; `env` adds to or overrides that, and a value of undefined removes an inherited variable) and resolves once
 * GET /health answers 200.
 */
export async function startServerProcess(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  command = process.execPath,
): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const merged: NodeJS.ProcessEnv = {
    ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn', ...env,
  };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  const child = spawn(command, args, { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 100))) {
    if (child.exitCode !== null) throw new Error(`server exited during start-up:\n${output}`);
    if (Date.now() > deadline) throw new Error(`server did not answer /health within ${timeoutMs / 1000} s:\n${output}`);
    // A fresh connection each time (no keep-alive): a test may count the server's connections afterwards.
    if (await fetch(`http://127.0.0.1:${port}/health`, { headers: { connection: 'close' } }).then((r) => r.ok, () => false)) break;
  }
  return { child, port, output: () => output, exited };
}
