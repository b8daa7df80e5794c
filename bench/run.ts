// `npm run bench`: measures every kind of tool call against the raw limit of this stack, side by side.
//
// For each catalog size (default 10,000 then 100,000 products):
//   1. CREATE DATABASE agent_api_bench_<random> on DATABASE_URL's server, migrate it (src/db/migrate.ts) and seed
//      it with set-based SQL (bench/seed.ts);
//   2. start the service as in production — `npm start`'s build, then its `node <flags> <entry>` as a child, with
//      LOG_LEVEL=warn and the rate limits raised by env — and the raw baseline (bench/baseline/server.ts), each on a free port;
//   3. check that service and baseline answer every baseline case byte for byte identically (abort if not);
//   4. drive each case with autocannon on loopback (warm-up, then a measured window in rounds interleaved with
//      the cases it is compared with, 10 connections), recording req/s, latency, and CPU per request;
//   5. stop both, drop the database (also on failure and Ctrl-C).
// Then print one table, evaluate the targets of issue 6 and write bench/results/latest.json.
//
// Env: DATABASE_URL (server to create bench databases on; default postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_SIZES (10000,100000), BENCH_DURATION (10 s measured per case), BENCH_WARMUP (3 s), BENCH_CONNECTIONS (10),
// BENCH_ROUNDS (5: the measured window is split into rounds alternating between the cases of a group),
// BENCH_CASES (regex on case names), BENCH_CPU_PROF=1 (service runs with --cpu-prof; its profile is kept as
// bench/results/service-<products>.cpuprofile, summarised by bench/profile-summary.ts),
// BENCH_OUT (bench/results/latest.json), BENCH_STRICT=1 (exit 1 when a target is missed),
// BENCH_EXTRA_SQL=<file> (run after the migrations: try an index before writing its migration),
// BENCH_NODE_ARGS (node flags for the service; default: those of `npm start` in package.json, whose build step
// the bench runs first and whose entry it starts),
// BENCH_SERVICE_LOG=<file> (the service's stdout and stderr, e.g. with BENCH_NODE_ARGS="… --trace-gc").
import { execSync, spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonRequest, type Instance, type RawResult } from 'autocannon';
import pg from 'pg';
import { createKey } from '../src/auth/key-admin.ts';
import { createDb } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { SCOPES } from '../src/registry/scopes.ts';
import { createBenchDatabase, Q_WORD, seedBenchData, type BenchDatabase, type SeedStats } from './seed.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// ---------------------------------------------------------------------------------------------------------
// Settings

const env = process.env;
/**
 * `npm start` (package.json) taken apart, so the bench runs the service exactly as production does: the steps
 * before the last `&&` (the build), then the last one, `node <flags> <entry>`.
 */
function startScript(): { prepare: string[]; nodeFlags: string[]; entry: string } {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const steps = scripts.start!.split('&&').map((step) => step.trim());
  const words = steps.at(-1)!.split(/\s+/);
  if (words[0] !== 'node' || words.length < 2) throw new Error(`npm start does not end with "node <flags> <entry>": ${scripts.start}`);
  return { prepare: steps.slice(0, -1), nodeFlags: words.slice(1, -1), entry: words.at(-1)! };
}
const START = startScript();
const settings = {
  serverUrl: env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  sizes: (env.BENCH_SIZES ?? '10000,100000').split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0),
  durationS: Number(env.BENCH_DURATION ?? 10),
  warmupS: Number(env.BENCH_WARMUP ?? 3),
  connections: Number(env.BENCH_CONNECTIONS ?? 10),
  rounds: Number(env.BENCH_ROUNDS ?? 5),
  caseFilter: env.BENCH_CASES ? new RegExp(env.BENCH_CASES, 'i') : undefined,
  cpuProf: env.BENCH_CPU_PROF === '1',
  out: path.resolve(ROOT, env.BENCH_OUT ?? 'bench/results/latest.json'),
  strict: env.BENCH_STRICT === '1',
  /** Extra node flags for the service only (e.g. --max-old-space-size=256, as an operator would set them). */
  serviceNodeArgs: env.BENCH_NODE_ARGS !== undefined ? env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : START.nodeFlags,
  /** SQL run after the migrations (e.g. an index being considered), before seeding. */
  extraSql: env.BENCH_EXTRA_SQL ? path.resolve(process.cwd(), env.BENCH_EXTRA_SQL) : undefined,
  serviceLog: env.BENCH_SERVICE_LOG ? path.resolve(process.cwd(), env.BENCH_SERVICE_LOG) : undefined,
};
if (settings.sizes.length === 0) throw new Error('BENCH_SIZES names no valid size');


// Writes only run on the largest catalog: their cost does not depend on catalog size, and the growth report is
// about reads.
const LARGEST = Math.max(...settings.sizes);
/** Above this average background CPU (cores, of 2 here) a case's numbers are flagged as measured on a busy machine. */
const NOISY_CORES = 0.25;

// ---------------------------------------------------------------------------------------------------------
// Cleanup: every resource registers its release; run once on success, failure, SIGINT and SIGTERM.

const cleanups: Array<() => Promise<unknown>> = [];
let current: Instance<unknown> | undefined;
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  return (cleaning ??= (async () => {
    current?.stop();
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup: ${(err as Error).message}`);
      }
    }
  })());
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping, dropping the bench database(s)…`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------------------
// Child processes

type Child = {
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
  const proc = spawn(process.execPath, nodeArgs, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
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
  cleanups.push(stop);
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

/** Where --cpu-prof writes: one file per thread (the tsx loader runs in its own), kept apart per service run. */
function profileDir(label: string): string {
  return path.join(os.tmpdir(), `agent-api-bench-prof-${process.pid}-${label}`);
}

/** Keeps the service main thread's profile (the largest file) as bench/results/service-<label>.cpuprofile. */
function keepProfile(label: string): string | null {
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

async function startService(databaseUrl: string, label: string): Promise<Child> {
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
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ANON_MAX: limit,
    RATE_LIMIT_PREAUTH_MAX: limit,
    RATE_LIMIT_AUTH_MAX: limit,
  }, port);
}

async function startBaseline(databaseUrl: string): Promise<Child> {
  const port = await freePort();
  return startChild('baseline', ['--import', 'tsx', 'bench/baseline/server.ts'], {
    ...env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    // Same pool size as the service (DB_POOL_MAX, default 10), or the comparison would measure pool sizes.
    POOL_MAX: env.DB_POOL_MAX ?? '10',
  }, port);
}

/** VmRSS and VmHWM (peak) of a process, in MB; null where /proc is not available. */
function memoryOf(pid: number): { rssMb: number; peakRssMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: round(kb('VmRSS') / 1024, 1), peakRssMb: round(kb('VmHWM') / 1024, 1) };
  } catch {
    return null;
  }
}

const CLOCK_TICKS = 100; // USER_HZ on Linux
/** User + system CPU seconds of one process (utime + stime in /proc/<pid>/stat). */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (1-based).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
/**
 * CPU seconds per PostgreSQL backend serving the bench database (pool connections stay open during a run, so the
 * delta over a window is the database work of that window; other databases' backends are not counted).
 */
async function backendCpu(databaseName: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: settings.serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [databaseName],
    );
    return new Map(rows.map((r) => [r.pid, cpuSecondsOf(r.pid)]));
  } finally {
    await client.end();
  }
}
function backendCpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}

// ---------------------------------------------------------------------------------------------------------
// Cases

type CaseDef = {
  name: string;
  path: string;
  /** Request bodies, rotated over the run (one per request, shared by all connections). */
  bodies: string[];
  auth: boolean;
  write: boolean;
  mcp: boolean;
  /** Same path and bodies on the baseline server, measured interleaved with the service. */
  baseline: boolean;
  /** Optional cases (other issues' tools) are skipped, not failed, when the service answers 404. */
  optional: boolean;
  /** Cases of one group are measured interleaved, round by round, so ratios between them see the same load. */
  group: string;
};

const C = {
  searchNone: 'products.search (no filter)',
  searchQ: `products.search (q="${Q_WORD}", ~1%)`,
  searchCategory: 'products.search (category+inStock+price)',
  get: 'products.get (random slugs)',
  categories: 'categories.list',
  searchAuth: 'products.search (no filter, authenticated)',
  orders: 'orders.list (status, authenticated)',
  mcp: 'MCP tools/call products.search',
  update: 'products.update (authenticated write)',
} as const;

type Fixtures = { getSlugs: string[]; updateSlugs: string[]; categorySlugs: string[] };

async function loadFixtures(url: string): Promise<Fixtures> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // md5 ordering: a deterministic "random" sample, the same on every run.
    const slugs = async (salt: string) =>
      (await client.query<{ slug: string }>(
        `SELECT slug FROM "Product" WHERE "deletedAt" IS NULL ORDER BY md5(slug || $1) LIMIT 1000`, [salt],
      )).rows.map((r) => r.slug);
    const categorySlugs = (await client.query<{ slug: string }>(`SELECT slug FROM "Category" ORDER BY md5(slug) LIMIT 10`)).rows.map((r) => r.slug);
    return { getSlugs: await slugs('get'), updateSlugs: await slugs('update'), categorySlugs };
  } finally {
    await client.end();
  }
}

function buildCases(fx: Fixtures, products: number): CaseDef[] {
  const tool = (name: string) => `/api/v1/tools/${name}`;
  const json = (v: unknown) => JSON.stringify(v);
  const base = { auth: false, write: false, mcp: false, baseline: false, optional: false };
  const cases: CaseDef[] = [
    // One group: the anonymous REST call, its baseline, the same call authenticated and through MCP — the
    // auth/anon and MCP/REST ratios are then measured under the same conditions.
    { ...base, group: 'search', name: C.searchNone, path: tool('products.search'), bodies: ['{}'], baseline: true },
    { ...base, group: 'search', name: C.searchAuth, path: tool('products.search'), bodies: ['{}'], auth: true },
    {
      ...base,
      group: 'search',
      name: C.mcp,
      path: '/api/mcp',
      bodies: [json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'products.search', arguments: {} } })],
      mcp: true,
      optional: true,
    },
    { ...base, group: 'q', name: C.searchQ, path: tool('products.search'), bodies: [json({ q: Q_WORD })], baseline: true },
    {
      ...base,
      group: 'category',
      name: C.searchCategory,
      path: tool('products.search'),
      // 500–1500 DKK: about a third of the price range.
      bodies: fx.categorySlugs.map((categorySlug) => json({ categorySlug, inStock: true, minPriceOere: 50_000, maxPriceOere: 150_000 })),
      baseline: true,
    },
    { ...base, group: 'get', name: C.get, path: tool('products.get'), bodies: fx.getSlugs.map((slug) => json({ slug })), baseline: true },
    { ...base, group: 'categories', name: C.categories, path: tool('categories.list'), bodies: ['{}'] },
    {
      ...base,
      group: 'orders',
      name: C.orders,
      path: tool('orders.list'),
      bodies: ['paid', 'shipped', 'pending_payment', 'delivered'].map((status) => json({ status })),
      auth: true,
      optional: true,
    },
  ];
  if (products === LARGEST) {
    cases.push({
      ...base,
      group: 'update',
      name: C.update,
      path: tool('products.update'),
      // A different slug and price on every request: no row lock is contended, every call really writes.
      bodies: fx.updateSlugs.map((slug, i) => json({ slug, patch: { priceDkk: 10_000 + i * 100 } })),
      auth: true,
      write: true,
    });
  }
  return settings.caseFilter ? cases.filter((c) => settings.caseFilter!.test(c.name)) : cases;
}

function headersFor(c: Pick<CaseDef, 'auth' | 'mcp'>, key: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...(c.mcp ? { accept: 'application/json, text/event-stream' } : {}),
    ...(c.auth ? { authorization: `Bearer ${key}` } : {}),
  };
}

async function post(port: number, p: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`http://127.0.0.1:${port}${p}`, { method: 'POST', headers, body });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/** Null when the case can run; otherwise why not (and whether that is a skip or an error). */
async function probe(c: CaseDef, service: Child, key: string): Promise<{ skip: boolean; reason: string } | null> {
  const res = await post(service.port, c.path, c.bodies[0], headersFor(c, key));
  const text = res.body.toString();
  if (res.status === 404 && c.optional) return { skip: true, reason: `not available (404 at ${c.path})` };
  if (res.status !== 200) return { skip: false, reason: `status ${res.status}: ${text.slice(0, 300)}` };
  if (c.mcp) {
    // A tool error comes back as 200 with result.isError; that is not a working call.
    let msg: { result?: { isError?: boolean } } | undefined;
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return { skip: false, reason: `not a JSON-RPC JSON response: ${text.slice(0, 300)}` };
    }
    if (!msg?.result || msg.result.isError) return { skip: false, reason: `no successful result: ${text.slice(0, 300)}` };
  }
  return null;
}

/** The service and the baseline must answer every body of a baseline case with the very same bytes. */
async function checkIdentical(c: CaseDef, service: Child, baseline: Child): Promise<void> {
  const sample = c.bodies.length > 50 ? c.bodies.filter((_, i) => i % Math.ceil(c.bodies.length / 50) === 0) : c.bodies;
  for (const body of sample) {
    const [a, b] = await Promise.all([
      post(service.port, c.path, body, headersFor({ auth: false, mcp: false }, '')),
      post(baseline.port, c.path, body, headersFor({ auth: false, mcp: false }, '')),
    ]);
    if (a.status !== 200 || b.status !== 200 || !a.body.equals(b.body)) {
      let at = 0;
      while (at < a.body.length && a.body[at] === b.body[at]) at++;
      throw new Error(
        `service and baseline differ for ${c.name} with body ${body} (status ${a.status} vs ${b.status}, first difference at byte ${at}):\n` +
          `  service:  …${a.body.subarray(Math.max(0, at - 80), at + 120).toString()}\n` +
          `  baseline: …${b.body.subarray(Math.max(0, at - 80), at + 120).toString()}`,
      );
    }
    const parsed = JSON.parse(a.body.toString()) as { result: unknown };
    if (Array.isArray(parsed.result) && parsed.result.length === 0) throw new Error(`${c.name} returns no rows for ${body}: the bench data is wrong`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Measuring: a group's legs (service and baseline sides of its cases) are warmed up, then measured in rounds
// that alternate between the legs. On a shared 2-core machine the background load drifts; interleaving makes
// every ratio compare windows that saw the same drift.

type Leg = { key: string; server: Child; path: string; bodies: string[]; auth: boolean; mcp: boolean };

type Measurement = {
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU milliseconds per request spent in the measured server process / in its PostgreSQL backends. */
  cpuMsPerReq: number | null;
  pgCpuMsPerReq: number | null;
};

type GroupMeasurement = {
  legs: Map<string, Measurement>;
  /** Average CPU (in cores) used during the measured windows by processes other than the bench's own. */
  backgroundCores: number | null;
};

function autocannonRequest(leg: Leg, key: string): AutocannonRequest {
  const headers = headersFor(leg, key);
  if (leg.bodies.length === 1) return { method: 'POST', path: leg.path, headers, body: leg.bodies[0] };
  let next = 0;
  return { method: 'POST', path: leg.path, headers, setupRequest: (req) => ({ ...req, body: leg.bodies[next++ % leg.bodies.length] }) };
}

/** Busy and total CPU seconds of the whole machine (first line of /proc/stat). */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = fields[3] + fields[4];
    return { busy: (total - idle) / CLOCK_TICKS, total: total / CLOCK_TICKS };
  } catch {
    return null;
  }
}

async function measureGroup(legs: Leg[], key: string, databaseName: string, processes: Child[]): Promise<GroupMeasurement> {
  const rounds = Math.max(1, settings.rounds);
  const slice = settings.durationS / rounds;
  const requests = new Map(legs.map((l) => [l.key, autocannonRequest(l, key)]));
  const opts = (leg: Leg) => ({ url: `http://127.0.0.1:${leg.server.port}`, connections: settings.connections, requests: [requests.get(leg.key)!], timeout: 10 });

  // Warm-up (JIT, connection pools, PostgreSQL caches), so the measured windows see the steady state.
  for (const leg of legs) {
    current = autocannon({ ...opts(leg), duration: settings.warmupS });
    await current;
  }

  const raw = new Map<string, RawResult[]>(legs.map((l) => [l.key, []]));
  const cpu = new Map<string, { own: number; pg: number }>(legs.map((l) => [l.key, { own: 0, pg: 0 }]));
  let foreign = 0;
  let elapsed = 0;
  let foreignKnown = true;
  for (let r = 0; r < rounds; r++) {
    // Alternate the order every round, so no leg always runs right after another.
    for (const leg of r % 2 === 0 ? legs : [...legs].reverse()) {
      const pg0 = await backendCpu(databaseName);
      const own0 = processes.map((p) => cpuSecondsOf(p.pid));
      const bench0 = process.cpuUsage();
      const machine0 = machineCpu();
      const t0 = Date.now();
      const run = autocannon({ ...opts(leg), duration: slice, skipAggregateResult: true });
      current = run;
      raw.get(leg.key)!.push(await run);
      current = undefined;
      const seconds = (Date.now() - t0) / 1000;
      const machine1 = machineCpu();
      const benchCpu = (() => {
        const u = process.cpuUsage(bench0);
        return (u.user + u.system) / 1e6;
      })();
      const ownDeltas = processes.map((p, i) => cpuSecondsOf(p.pid) - own0[i]);
      const pgDelta = backendCpuDelta(pg0, await backendCpu(databaseName));
      const c = cpu.get(leg.key)!;
      c.own += ownDeltas[processes.indexOf(leg.server)];
      c.pg += pgDelta;
      if (machine0 && machine1) {
        foreign += machine1.busy - machine0.busy - benchCpu - ownDeltas.reduce((a, b) => a + b, 0) - pgDelta;
        elapsed += seconds;
      } else {
        foreignKnown = false;
      }
    }
  }

  const out = new Map<string, Measurement>();
  for (const leg of legs) {
    const results = raw.get(leg.key)!;
    const merged = autocannon.aggregateResult(results, { url: `http://127.0.0.1:${leg.server.port}`, connections: settings.connections });
    const total = results.reduce((a, r) => a + r.totalCompletedRequests, 0);
    const seconds = results.reduce((a, r) => a + r.duration, 0);
    const perReq = (s: number) => (Number.isFinite(s) && total > 0 ? round((s * 1000) / total, 3) : null);
    const c = cpu.get(leg.key)!;
    out.set(leg.key, {
      rps: round(total / seconds, 0),
      p50Ms: merged.latency.p50,
      p90Ms: merged.latency.p90,
      p99Ms: merged.latency.p99,
      maxMs: merged.latency.max,
      requests: total,
      non2xx: merged.non2xx,
      errors: merged.errors,
      timeouts: merged.timeouts,
      cpuMsPerReq: perReq(c.own),
      pgCpuMsPerReq: perReq(c.pg),
    });
  }
  return { legs: out, backgroundCores: foreignKnown && elapsed > 0 ? round(Math.max(0, foreign) / elapsed, 2) : null };
}

// ---------------------------------------------------------------------------------------------------------
// One catalog size

type CaseResult = {
  name: string;
  rps: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  baselineRps: number | null;
  ratio: number | null;
  status: 'ok' | 'skipped' | 'error';
  note?: string;
  kind: 'read' | 'write';
  authenticated: boolean;
  /** Average CPU cores used by unrelated processes while this case was measured (noise indicator). */
  backgroundCores?: number | null;
  service?: Measurement;
  baseline?: Measurement;
};

type SizeResult = {
  products: number;
  seed: SeedStats;
  cases: CaseResult[];
  ceiling: Measurement | null;
  serviceMemory: { rssMb: number; peakRssMb: number } | null;
  baselineMemory: { rssMb: number; peakRssMb: number } | null;
};

async function runSize(products: number): Promise<SizeResult> {
  console.log(`\n=== ${products.toLocaleString('en')} products ===`);
  const db: BenchDatabase = await createBenchDatabase(settings.serverUrl);
  cleanups.push(() => db.drop());
  console.log(`database ${db.name}: migrating and seeding…`);
  await migrate(db.url, { log: () => {} });
  if (settings.extraSql) {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(readFileSync(settings.extraSql, 'utf8'));
    } finally {
      await client.end();
    }
    console.log(`applied ${path.relative(ROOT, settings.extraSql)} after the migrations`);
  }
  const seed = await seedBenchData(db.url, products);
  console.log(
    `seeded in ${seed.seedSeconds.toFixed(1)} s: ${seed.products} products (${seed.liveProducts} live), ${seed.categories} categories, ` +
      `${seed.orders} orders / ${seed.orderItems} items; q "${Q_WORD}" matches ${seed.qMatches} (${((100 * seed.qMatches) / seed.liveProducts).toFixed(2)} %)`,
  );

  const prisma = createDb({ connectionString: db.url, poolMax: 1 });
  const { key } = await createKey(prisma, { name: 'bench', scopes: [...SCOPES] });
  await prisma.$disconnect();
  const fixtures = await loadFixtures(db.url);
  const cases = buildCases(fixtures, products);

  const service = await startService(db.url, String(products));
  const baseline = await startBaseline(db.url);
  console.log(`service pid ${service.pid} on :${service.port}, baseline pid ${baseline.pid} on :${baseline.port}`);

  // Fail loudly before measuring anything: a baseline that answers differently is not a baseline.
  for (const c of cases.filter((x) => x.baseline)) await checkIdentical(c, service, baseline);
  if (cases.some((c) => c.baseline)) console.log('service and baseline answer byte-identically on every baseline case');

  const results: CaseResult[] = [];
  const groups = [...new Set(cases.map((c) => c.group))];
  for (const group of groups) {
    const runnable: CaseDef[] = [];
    for (const c of cases.filter((x) => x.group === group)) {
      const problem = await probe(c, service, key);
      if (!problem) {
        runnable.push(c);
        continue;
      }
      results.push({
        name: c.name, kind: c.write ? 'write' : 'read', authenticated: c.auth,
        rps: null, p50Ms: null, p99Ms: null, baselineRps: null, ratio: null, status: problem.skip ? 'skipped' : 'error', note: problem.reason,
      });
      console.log(`${pad(c.name, 46)} ${problem.skip ? 'SKIPPED' : 'ERROR'}: ${problem.reason}`);
    }
    if (runnable.length === 0) continue;
    const legs: Leg[] = runnable.flatMap((c) => [
      { key: `${c.name}|service`, server: service, path: c.path, bodies: c.bodies, auth: c.auth, mcp: c.mcp },
      ...(c.baseline ? [{ key: `${c.name}|baseline`, server: baseline, path: c.path, bodies: c.bodies, auth: false, mcp: false }] : []),
    ]);
    const m = await measureGroup(legs, key, db.name, [service, baseline]);
    for (const c of runnable) {
      const s = m.legs.get(`${c.name}|service`)!;
      const b = m.legs.get(`${c.name}|baseline`);
      const bad = (x: Measurement) => x.non2xx + x.errors + x.timeouts;
      const failed = bad(s) + (b ? bad(b) : 0) > 0;
      const result: CaseResult = {
        name: c.name,
        rps: s.rps,
        p50Ms: s.p50Ms,
        p99Ms: s.p99Ms,
        baselineRps: b?.rps ?? null,
        ratio: b ? round(s.rps / b.rps, 2) : null,
        status: failed ? 'error' : 'ok',
        ...(failed ? { note: `non-2xx/errors/timeouts: service ${s.non2xx}/${s.errors}/${s.timeouts}${b ? `, baseline ${b.non2xx}/${b.errors}/${b.timeouts}` : ''}` } : {}),
        kind: c.write ? 'write' : 'read',
        authenticated: c.auth,
        backgroundCores: m.backgroundCores,
        service: s,
        ...(b ? { baseline: b } : {}),
      };
      results.push(result);
      if (failed) console.error(`${c.name} failed; the service's last output:\n${service.output().slice(-2000)}`);
      console.log(
        `${pad(c.name, 46)} ${pad(String(s.rps), 7, true)} req/s  p50 ${s.p50Ms} ms  p99 ${s.p99Ms} ms` +
          (b ? `  | baseline ${b.rps} req/s p99 ${b.p99Ms} ms → ×${result.ratio}` : '') +
          (m.backgroundCores !== null && m.backgroundCores > NOISY_CORES ? `  (background load ${m.backgroundCores} cores)` : '') +
          (failed ? `  !! ${result.note}` : ''),
      );
    }
  }
  // Keep the reported order stable (the order of buildCases), whatever the grouping.
  results.sort((a, b) => cases.findIndex((c) => c.name === a.name) - cases.findIndex((c) => c.name === b.name));

  let ceiling: Measurement | null = null;
  if (!settings.caseFilter || settings.caseFilter.test('ceiling')) {
    const leg: Leg = { key: 'ceiling', server: baseline, path: '/ceiling', bodies: ['{}'], auth: false, mcp: false };
    ceiling = (await measureGroup([leg], key, db.name, [service, baseline])).legs.get('ceiling')!;
    console.log(`${pad('framework ceiling (constant, same size)', 46)} ${pad(String(ceiling.rps), 7, true)} req/s  p50 ${ceiling.p50Ms} ms  p99 ${ceiling.p99Ms} ms`);
  }

  // After the run, as the issue asks: the service's memory once every case has gone through it.
  const serviceMemory = memoryOf(service.pid);
  const baselineMemory = memoryOf(baseline.pid);
  if (serviceMemory) console.log(`service RSS after the run: ${serviceMemory.rssMb} MB (peak ${serviceMemory.peakRssMb} MB)`);

  await service.stop();
  await baseline.stop();
  if (settings.cpuProf) {
    const kept = keepProfile(String(products));
    if (kept) console.log(`CPU profile of the service: ${path.relative(process.cwd(), kept)} (npx tsx bench/profile-summary.ts ${path.relative(process.cwd(), kept)})`);
  }
  await db.drop();
  return { products, seed, cases: results, ceiling, serviceMemory, baselineMemory };
}

// ---------------------------------------------------------------------------------------------------------
// Targets (issue 6, point 4), evaluated on the largest catalog

type TargetResult = { name: string; value: number | null; threshold: string; met: boolean | null; note?: string };

function evaluateTargets(main: SizeResult, smallest: SizeResult | undefined): TargetResult[] {
  const byName = new Map(main.cases.map((c) => [c.name, c]));
  const ok = (name: string) => {
    const c = byName.get(name);
    return c && c.status === 'ok' ? c : undefined;
  };
  const out: TargetResult[] = [];
  const ratioTarget = (name: string, min: number) => {
    const c = ok(name);
    out.push({ name: `${name} ≥ ${min} × baseline`, value: c?.ratio ?? null, threshold: `≥ ${min}`, met: c?.ratio == null ? null : c.ratio >= min });
  };
  ratioTarget(C.get, 0.7);
  ratioTarget(C.searchNone, 0.7);
  ratioTarget(C.searchCategory, 0.7);
  ratioTarget(C.searchQ, 0.9);
  for (const c of main.cases) {
    if (c.kind !== 'read' || c.name === C.searchQ) continue;
    out.push({ name: `p99 < 25 ms: ${c.name}`, value: c.p99Ms, threshold: '< 25 ms', met: c.status === 'ok' && c.p99Ms !== null ? c.p99Ms < 25 : null, ...(c.status !== 'ok' ? { note: c.status } : {}) });
  }
  const pair = (name: string, a: string, b: string, min: number) => {
    const x = ok(a);
    const y = ok(b);
    const value = x && y && x.rps && y.rps ? round(x.rps / y.rps, 2) : null;
    out.push({ name, value, threshold: `≥ ${min}`, met: value === null ? null : value >= min, ...(value === null ? { note: 'a case was skipped or failed' } : {}) });
  };
  pair(`MCP tools/call ≥ 0.5 × REST (${C.mcp} / ${C.searchNone})`, C.mcp, C.searchNone, 0.5);
  pair(`authenticated read ≥ 0.85 × anonymous (${C.searchAuth} / ${C.searchNone})`, C.searchAuth, C.searchNone, 0.85);
  const rss = main.serviceMemory?.rssMb ?? null;
  out.push({ name: 'service RSS after the run < 250 MB', value: rss, threshold: '< 250 MB', met: rss === null ? null : rss < 250 });
  if (smallest && smallest.products !== main.products) {
    // The issue's words, not a number: "search must not be linear in catalog size". Compared on CPU per request
    // (service + its PostgreSQL backends), which hardly depends on background load, unlike req/s measured minutes
    // apart. Linear growth would multiply it by the size ratio; we require at most half of that.
    const sizeRatio = main.products / smallest.products;
    for (const name of [C.searchNone, C.searchCategory, C.searchQ, C.get]) {
      const big = totalCpu(main.cases.find((c) => c.name === name && c.status === 'ok'));
      const small = totalCpu(smallest.cases.find((c) => c.name === name && c.status === 'ok'));
      const value = big !== null && small !== null && small > 0 ? round(big / small, 2) : null;
      out.push({
        name: `not linear in catalog size: ${name}, CPU per request at ${main.products} ÷ at ${smallest.products} (linear = ${sizeRatio})`,
        value,
        threshold: `≤ ${sizeRatio / 2}`,
        met: value === null ? null : value <= sizeRatio / 2,
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Output

function totalCpu(c: CaseResult | undefined): number | null {
  const s = c?.service;
  return s && s.cpuMsPerReq !== null && s.pgCpuMsPerReq !== null ? round(s.cpuMsPerReq + s.pgCpuMsPerReq, 3) : null;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
function pad(s: string, n: number, left = false): string {
  return left ? s.padStart(n) : s.padEnd(n);
}
function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function printTable(size: SizeResult): void {
  const rows: string[][] = [['case', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'ratio', 'note']];
  for (const c of size.cases) {
    if (c.status !== 'ok') {
      rows.push([c.name, c.status.toUpperCase(), '', '', '', '', c.note?.slice(0, 70) ?? '']);
      continue;
    }
    const busy = c.backgroundCores != null && c.backgroundCores > NOISY_CORES ? `busy machine: ${c.backgroundCores} cores in other processes` : '';
    rows.push([c.name, String(c.rps), String(c.p50Ms), String(c.p99Ms), c.baselineRps === null ? '—' : String(c.baselineRps), c.ratio === null ? '—' : c.ratio.toFixed(2), busy]);
  }
  if (size.ceiling) rows.push(['(framework ceiling: constant, same size)', String(size.ceiling.rps), String(size.ceiling.p50Ms), String(size.ceiling.p99Ms), '—', '—', '']);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i === 0 || i === r.length - 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd();
  console.log(
    `\n${size.products.toLocaleString('en')} products, ${settings.connections} connections, ${settings.durationS} s per case ` +
      `(${settings.rounds} interleaved rounds) after ${settings.warmupS} s warm-up:`,
  );
  console.log(line(rows[0]));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows.slice(1)) console.log(line(r));
}

async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: settings.serverUrl });
  await client.connect();
  try {
    return (await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v;
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const started = Date.now();
  for (const step of START.prepare) execSync(step, { cwd: ROOT, stdio: 'inherit' });
  const sizes: SizeResult[] = [];
  for (const n of [...settings.sizes].sort((a, b) => a - b)) sizes.push(await runSize(n));
  const largest = sizes[sizes.length - 1];
  const smallest = sizes[0];

  for (const s of sizes) printTable(s);

  const growth = largest.cases
    .filter((c) => c.kind === 'read')
    .map((c) => {
      const small = smallest.cases.find((x) => x.name === c.name);
      return {
        name: c.name,
        [`rps${smallest.products}`]: small?.rps ?? null,
        [`rps${largest.products}`]: c.rps,
        rpsRatio: small?.rps && c.rps ? round(c.rps / small.rps, 2) : null,
        [`p99Ms${smallest.products}`]: small?.p99Ms ?? null,
        [`p99Ms${largest.products}`]: c.p99Ms,
        // CPU per request (service + its PostgreSQL backends) hardly depends on background load, unlike req/s.
        [`cpuMsPerReq${smallest.products}`]: totalCpu(small),
        [`cpuMsPerReq${largest.products}`]: totalCpu(c),
      };
    });
  if (sizes.length > 1) {
    console.log(`\nGrowth ${smallest.products.toLocaleString('en')} → ${largest.products.toLocaleString('en')} products (req/s ratio; 1.0 = no slowdown, ${round(smallest.products / largest.products, 2)} = linear):`);
    for (const g of growth) {
      const cpu = (n: number) => g[`cpuMsPerReq${n}`] ?? '—';
      console.log(`  ${pad(g.name, 46)} ×${g.rpsRatio ?? '—'}   CPU ms/request (service + PostgreSQL) ${cpu(smallest.products)} → ${cpu(largest.products)}`);
    }
  }

  const targets = evaluateTargets(largest, smallest);
  console.log(`\nTargets (${largest.products.toLocaleString('en')} products):`);
  for (const t of targets) {
    const mark = t.met === null ? 'n/a ' : t.met ? 'met ' : 'MISS';
    console.log(`  [${mark}] ${t.name}: ${t.value ?? '—'}${t.note ? ` (${t.note})` : ''}`);
  }

  const report = {
    date: new Date().toISOString(),
    node: process.version,
    postgres: await postgresVersion(),
    products: largest.products,
    cases: largest.cases,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null, memoryMb: Math.round(os.totalmem() / 2 ** 20), platform: `${os.platform()} ${os.release()}` },
    settings: { connections: settings.connections, durationS: settings.durationS, warmupS: settings.warmupS, rounds: settings.rounds, sizes: settings.sizes, cpuProf: settings.cpuProf, caseFilter: env.BENCH_CASES ?? null, extraSql: settings.extraSql ? path.relative(ROOT, settings.extraSql) : null, serviceNodeArgs: settings.serviceNodeArgs },
    ceiling: largest.ceiling,
    rssMb: largest.serviceMemory?.rssMb ?? null,
    peakRssMb: largest.serviceMemory?.peakRssMb ?? null,
    baselineRssMb: largest.baselineMemory?.rssMb ?? null,
    targets,
    targetsMet: targets.filter((t) => t.met === true).length,
    targetsMissed: targets.filter((t) => t.met === false).map((t) => t.name),
    growth,
    sizes: sizes.map((s) => ({ products: s.products, seed: s.seed, cases: s.cases, ceiling: s.ceiling, serviceMemory: s.serviceMemory, baselineMemory: s.baselineMemory })),
    durationS: round((Date.now() - started) / 1000, 0),
  };
  mkdirSync(path.dirname(settings.out), { recursive: true });
  writeFileSync(settings.out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), settings.out)} (${report.durationS} s)`);

  const errors = sizes.flatMap((s) => s.cases).filter((c) => c.status === 'error');
  if (errors.length > 0) {
    console.error(`\n${errors.length} case(s) failed: ${errors.map((c) => c.name).join('; ')}`);
    return 1;
  }
  if (settings.strict && report.targetsMissed.length > 0) return 1;
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(`\nbench failed: ${(err as Error).stack ?? String(err)}`);
} finally {
  await cleanup();
}
process.exit(code);
