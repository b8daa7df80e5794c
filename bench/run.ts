// `npm run bench`: measures every kind of tool call against the raw limit of this stack, side by side.
//
// For each catalog size (default 10,000 then 100,000 products):
//   1. CREATE DATABASE agent_api_bench_<random> on DATABASE_URL's server, migrate it (src/db/migrate.ts) and seed
//      it with set-based SQL (bench/seed.ts);
//   2. start the service as in production — `npm start`'s build, then its `node <flags> <entry>` as a child, with
//      LOG_LEVEL=warn and the rate limits raised by env — and the raw baseline (bench/baseline/server.ts, bundled by
//      the same build script, started on the same node with `npm start`'s flags), each on a free port;
//   3. check from /proc that both run as bundles built by this run with no loader (abort if not), and that they
//      answer every baseline case byte for byte identically (abort if not);
//   4. drive each case with autocannon on loopback (warm-up, then a measured window in rounds interleaved with
//      the cases it is compared with, 10 connections), recording req/s, latency, and CPU per request;
//   5. stop both, drop the database (also on failure and Ctrl-C).
// Then (BENCH_WEBHOOKS=1) the webhook delivery cases (bench/webhooks.ts), print one table, evaluate the targets of docs/performance.md
// and docs/webhooks.md, and write bench/results/latest.json.
//
// Env: DATABASE_URL (server to create bench databases on; default postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_SIZES (10000,100000), BENCH_DURATION (10 s measured per case), BENCH_WARMUP (3 s), BENCH_CONNECTIONS (10),
// BENCH_ROUNDS (5: the measured window is split into rounds alternating between the cases of a group),
// BENCH_CASES (regex on case names), BENCH_CPU_PROF=1 (service runs with --cpu-prof; its profile is kept as
// bench/results/service-<products>.cpuprofile, summarised by bench/profile-summary.ts),
// BENCH_OUT (bench/results/latest.json), BENCH_STRICT=1 (exit 1 when a target is missed),
// BENCH_EXTRA_SQL=<file> (run after the migrations: try an index before writing its migration),
// BENCH_NODE (the node binary service and baseline run on; default: Node 24 from scripts/fetch-node.mjs),
// BENCH_NODE_ARGS (node flags for the service; default: those of `npm start` in package.json, whose build step
// the bench runs first and whose entry it starts),
// BENCH_SERVICE_LOG=<file> (the service's stdout and stderr, e.g. with BENCH_NODE_ARGS="… --trace-gc"),
// BENCH_SOAK (600: seconds of the write soak at half the measured checkout capacity; 0 skips it),
// BENCH_MAX_WRITE_RATE (2500: checkouts per second each checkout leg has carts for),
// BENCH_WEBHOOKS=1 (add the webhook cases).
//
// One file per job: settings.ts (env), cleanup.ts, processes.ts (the two servers), resources.ts (CPU and memory
// from /proc), cases.ts, measure.ts (autocannon rounds), run-size.ts (one catalog size), targets.ts, report.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanup } from './cleanup.ts';
import { round } from './format.ts';
import { growthOf, postgresVersion, printGrowth, printTable, printTargets } from './report.ts';
import { runSize, type SizeResult } from './run-size.ts';
import { buildBundles } from './processes.ts';
import { ROOT, settings } from './settings.ts';
import { evaluateTargets } from './targets.ts';
import { runWebhookBench } from './webhooks.ts';

async function main(): Promise<number> {
  const started = Date.now();
  buildBundles();
  const sizes: SizeResult[] = [];
  for (const n of [...settings.sizes].sort((a, b) => a - b)) sizes.push(await runSize(n));
  const largest = sizes[sizes.length - 1];
  const smallest = sizes[0];

  for (const s of sizes) printTable(s);

  const growth = growthOf(smallest, largest);
  if (sizes.length > 1) printGrowth(growth, smallest, largest);

  const webhooks = settings.webhooks ? await runWebhookBench() : null;
  const targets = [...evaluateTargets(largest, smallest), ...(webhooks?.targets ?? [])];
  printTargets(targets, largest.products);

  const report = {
    date: new Date().toISOString(),
    node: settings.serverNode.version,
    postgres: await postgresVersion(),
    products: largest.products,
    cases: largest.cases,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null, memoryMb: Math.round(os.totalmem() / 2 ** 20), platform: `${os.platform()} ${os.release()}` },
    runtime: largest.runtime,
    settings: { connections: settings.connections, durationS: settings.durationS, warmupS: settings.warmupS, rounds: settings.rounds, sizes: settings.sizes, cpuProf: settings.cpuProf, caseFilter: process.env.BENCH_CASES ?? null, extraSql: settings.extraSql ? path.relative(ROOT, settings.extraSql) : null, serviceNodeArgs: settings.serviceNodeArgs },
    ceiling: largest.ceiling,
    rssMb: largest.serviceMemory?.rssMb ?? null,
    peakRssMb: largest.serviceMemory?.peakRssMb ?? null,
    baselineRssMb: largest.baselineMemory?.rssMb ?? null,
    toolListTokens: largest.toolListTokens,
    soak: largest.soak,
    targets,
    targetsMet: targets.filter((t) => t.met === true).length,
    targetsMissed: targets.filter((t) => t.met === false).map((t) => t.name),
    growth,
    webhooks,
    sizes: sizes.map((s) => ({ products: s.products, runtime: s.runtime, seed: s.seed, cases: s.cases, ceiling: s.ceiling, serviceMemory: s.serviceMemory, baselineMemory: s.baselineMemory })),
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
