// The two servers under test, each a child process on a free port: the service as `npm start` runs it, and the raw
// baseline (bench/baseline/server.ts) bundled by the same build step and started on the same node with the same
// flags. Before anything is measured, checkRuntime reads from /proc how each one actually runs.
import { execFileSync, execSync, spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { newSecretsKey } from '../src/secrets/secret-box.ts';
import { registerCleanup } from './cleanup.ts';
import { BASELINE, ROOT, START, settings } from './settings.ts';

const env = process.env;
/** Production requires SECRETS_KEY; a bench database lives for one run, and so may its key. */
const secretsKey = env.SECRETS_KEY ?? newSecretsKey();

export type Child = {
  name: string;
  pid: number;
  port: number;
  stop: () => Promise<void>;
  /** The last ~8 kB the process wrote (stdout and stderr). */
  output: () => string;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function startChild(name: string, nodeArgs: string[], childEnv: NodeJS.ProcessEnv, port: number): Promise<Child> {
  const proc = spawn(settings.serverNode.path, nodeArgs, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  // Keep the tail of the child's output for error messages; never let a full pipe block the child.
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-8000);
    if (settings.serviceLog && name === 'service') appendFileSync(settings.serviceLog, chunk);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  let exited = proc.exitCode !== null;
  const exit = new Promise<void>((resolve) => proc.once('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (exited) return;
    proc.kill('SIGTERM');
    // A --cpu-prof profile is written on exit, which can take a few seconds for a long run.
    const killed = await Promise.race([exit.then(() => false), sleep(20_000).then(() => true)]);
    if (killed) {
      proc.kill('SIGKILL');
      await exit;
    }
  };
  registerCleanup(stop);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${name} exited during start-up:\n${tail}`);
    if (Date.now() > deadline) throw new Error(`${name} did not become healthy within 60 s:\n${tail}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    await sleep(100);
  }
  return { name, pid: proc.pid!, port, stop, output: () => tail };
}

/** Where --cpu-prof writes: one file per thread, kept apart per service run. */
function profileDir(label: string): string {
  return path.join(os.tmpdir(), `agent-api-bench-prof-${process.pid}-${label}`);
}

/** Keeps the service main thread's profile (the largest file) as bench/results/service-<label>.cpuprofile. */
export function keepProfile(label: string): string | null {
  const dir = profileDir(label);
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f));
  const largest = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  let kept: string | null = null;
  if (largest) {
    kept = path.join(path.dirname(settings.out), `service-${label}.cpuprofile`);
    mkdirSync(path.dirname(kept), { recursive: true });
    copyFileSync(largest, kept); // not rename: the temp dir may be on another file system
  }
  rmSync(dir, { recursive: true, force: true });
  return kept;
}

/** `extraEnv` overrides the defaults (the webhook bench delivers to a receiver on loopback). */
export async function startService(databaseUrl: string, label: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Child> {
  const port = await freePort();
  const args = [
    ...settings.serviceNodeArgs,
    ...(settings.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profileDir(label)}`] : []),
    START.entry,
  ];
  const limit = String(1_000_000_000);
  return startChild('service', args, {
    ...env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: databaseUrl,
    SECRETS_KEY: secretsKey,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ANON_MAX: limit,
    RATE_LIMIT_PREAUTH_MAX: limit,
    RATE_LIMIT_AUTH_MAX: limit,
    RATE_LIMIT_CHECKOUT_MAX: limit,
    ...extraEnv,
  }, port);
}

/** The baseline gets `npm start`'s flags, not BENCH_NODE_ARGS: those are an experiment on the service alone. */
export async function startBaseline(databaseUrl: string): Promise<Child> {
  const port = await freePort();
  return startChild('baseline', [...START.nodeFlags, BASELINE.entry], {
    ...env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    // Same pool size as the service (DB_POOL_MAX, default 10), or the comparison would measure pool sizes.
    POOL_MAX: env.DB_POOL_MAX ?? '10',
  }, port);
}

let builtAfter = Infinity;
/** `npm start`'s build step, then the same script on the baseline: both sides run as bundles built now. */
export function buildBundles(): void {
  // A second of slack for file systems with coarse timestamps; a bundle left from an earlier run is older than that.
  builtAfter = Date.now() - 1000;
  for (const step of START.prepare) execSync(step, { cwd: ROOT, stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/build.mjs', BASELINE.source], { cwd: ROOT, stdio: 'inherit' });
}

/** Node options that run code before the entry: a loader (tsx), a preload, or TypeScript stripped at load time. */
const LOADER_FLAG = /^(--import|--loader|--experimental-loader|--require|-r|--experimental-strip-types|--experimental-transform-types)(=|$)/;

/**
 * How a started child really runs, from /proc/<pid>/cmdline and its NODE_OPTIONS: the node binary, its flags and
 * its entry. Throws — the bench then measures nothing — when it runs under a loader or a preload, or from anything
 * but the bundle `entry` built by buildBundles in this run, or on another node or without the flags `expected`.
 */
export function checkRuntime(child: Child, entry: string, expected: { node: string; flags: readonly string[] }): string {
  const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const nodeOptions = /(?:^|\0)NODE_OPTIONS=([^\0]*)/.exec(readFileSync(`/proc/${child.pid}/environ`, 'utf8'))?.[1] ?? '';
  const [node, ...rest] = argv;
  const flags = rest.slice(0, -1);
  const described = `${[node, ...rest].join(' ')}${nodeOptions ? ` (NODE_OPTIONS=${nodeOptions})` : ''}`;
  const loaders = [...flags, ...nodeOptions.split(/\s+/)].filter((f) => LOADER_FLAG.test(f));
  const problems = [
    ...(loaders.length > 0 ? [`runs under a loader or preload (${loaders.join(' ')})`] : []),
    ...(rest.at(-1) !== entry ? [`does not run the bundle ${entry}`] : []),
    ...(existsSync(path.join(ROOT, entry)) && statSync(path.join(ROOT, entry)).mtimeMs >= builtAfter ? [] : [`${entry} was not built by this run`]),
    ...(node !== expected.node ? [`runs on ${node}, not ${expected.node}`] : []),
    ...(expected.flags.some((f) => !flags.includes(f)) ? [`lacks the flags ${expected.flags.filter((f) => !flags.includes(f)).join(' ')}`] : []),
  ];
  if (problems.length > 0) throw new Error(`refusing to measure: ${child.name} ${problems.join('; ')}\n  ${described}`);
  return described;
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
