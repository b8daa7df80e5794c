// The bench's settings, read once from the environment (documented in bench/run.ts and docs/performance.md).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

const env = process.env;
/**
 * `npm start` (package.json) taken apart, so the bench runs the service exactly as production does: the steps
 * before the last `&&` (the build), then the last one, `node <flags> <entry>`.
 */
function startScript(): { prepare: string[]; nodeFlags: string[]; entry: string } {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const steps = scripts.start!.split('&&').map((step) => step.trim());
  const words = steps.at(-1)!.replace(/^exec\s+/, '').split(/\s+/);
  if (words[0] !== 'node' || words.length < 2) throw new Error(`npm start does not end with "node <flags> <entry>": ${scripts.start}`);
  return { prepare: steps.slice(0, -1), nodeFlags: words.slice(1, -1), entry: words.at(-1)! };
}
export const START = startScript();
/** The raw baseline's source and the bundle scripts/build.mjs makes of it (the bench builds it with the service). */
export const BASELINE = { source: 'bench/baseline/server.ts', entry: '.build/bench/baseline/server.mjs' };

/**
 * The Node.js the service and the baseline run on: BENCH_NODE, else the newest Node 24 (an LTS line production runs,
 * docs/deploy.md "Runtimes"), fetched once by scripts/fetch-node.mjs, whatever Node runs the bench itself.
 */
function serverNode(): { path: string; version: string } {
  const binary = env.BENCH_NODE ?? execFileSync(process.execPath, [path.join(ROOT, 'scripts/fetch-node.mjs'), '24'], { encoding: 'utf8' }).trim();
  return { path: binary, version: execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim() };
}
export const settings = {
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
  /** Seconds of the write soak at half of the measured checkout capacity (0: none). */
  soakS: Number(env.BENCH_SOAK ?? 600),
  serverNode: serverNode(),
  /** Extra node flags for the service only (e.g. --max-old-space-size=256, as an operator would set them). */
  serviceNodeArgs: env.BENCH_NODE_ARGS !== undefined ? env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : START.nodeFlags,
  /** SQL run after the migrations (e.g. an index being considered), before seeding. */
  extraSql: env.BENCH_EXTRA_SQL ? path.resolve(process.cwd(), env.BENCH_EXTRA_SQL) : undefined,
  serviceLog: env.BENCH_SERVICE_LOG ? path.resolve(process.cwd(), env.BENCH_SERVICE_LOG) : undefined,
  /** BENCH_WEBHOOKS=1 adds the webhook delivery cases (bench/webhooks.ts). */
  webhooks: env.BENCH_WEBHOOKS === '1',
};
if (settings.sizes.length === 0) throw new Error('BENCH_SIZES names no valid size');

// Writes only run on the largest catalog: their cost does not depend on catalog size, and the growth report is
// about reads.
export const LARGEST = Math.max(...settings.sizes);
/** Above this average background CPU (cores, of 2 here) a case's numbers are flagged as measured on a busy machine. */
export const NOISY_CORES = 0.25;
