// How long the operator CLI's commands take as an operator runs them (docs/operator.md, "How fast it answers"):
// `node scripts/cli.mjs …` as a child process, wall clock and CPU (user + system), the median of RUNS runs each,
// against DATABASE_URL (required: a database this may write keys, grants and signing keys to).
// Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node bench/cli-speed.mjs [runs]
// Plain node, no TypeScript loader, so that nothing but the CLI itself is timed. The bundle is built first (one
// untimed `--help`), so no run pays for a rebuild.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.argv[2] ?? 5);
if (!process.env.DATABASE_URL) {
  console.error('DATABASE_URL is required');
  process.exit(2);
}

/** One CLI run: its stdout, wall time, and the CPU time /usr/bin/time reports for it. */
function run(args) {
  const started = process.hrtime.bigint();
  const child = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, 'scripts/cli.mjs', ...args], { cwd: ROOT, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const times = child.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  if (child.status !== 0) throw new Error(`cli ${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  return { stdout: child.stdout, wall, cpu: times[0] + times[1] };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

run(['--help']);
const fresh = () => JSON.parse(run(['keys', 'create', '--name', 'cli-speed', '--scopes', 'catalog:read', '--json']).stdout).id;
const retired = () => JSON.parse(run(['ucp', 'rotate-key', '--json']).stdout).kid;
const cases = [
  ['--help', () => ['--help']],
  ['keys create', () => ['keys', 'create', '--name', 'cli-speed', '--scopes', 'catalog:read', '--json']],
  ['keys list', () => ['keys', 'list', '--json']],
  ['keys rotate', () => ['keys', 'rotate', fresh(), '--json']],
  ['keys revoke', () => ['keys', 'revoke', fresh(), '--json']],
  ['grants list', () => ['grants', 'list', '--json']],
  ['oauth rotate-keys', () => ['oauth', 'rotate-keys', '--json']],
  ['secrets reencrypt', () => ['secrets', 'reencrypt', '--json']],
  ['ucp keys', () => ['ucp', 'keys', '--json']],
  ['ucp rotate-key', () => ['ucp', 'rotate-key', '--json']],
  ['ucp retire-key', () => ['ucp', 'retire-key', retired(), '--json']],
  ['migrate', () => ['migrate', '--json']],
];

console.log(`node ${process.version}, ${RUNS} runs each, median (min–max)`);
for (const [name, argsOf] of cases) {
  const walls = [];
  const cpus = [];
  for (let i = 0; i < RUNS; i++) {
    const args = argsOf();
    const { wall, cpu } = run(args);
    walls.push(wall);
    cpus.push(cpu);
  }
  const fmt = (xs) => `${median(xs).toFixed(2)} s (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  console.log(`${name.padEnd(20)} wall ${fmt(walls)}   cpu ${fmt(cpus)}`);
}
