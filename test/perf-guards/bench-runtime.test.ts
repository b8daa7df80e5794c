// The bench measures the service against a baseline that runs as the service does (docs/performance.md item 15):
// both bundled by scripts/build.mjs, on the same node, with `npm start`'s flags, no loader. checkRuntime reads how a
// started process really runs from /proc and refuses anything else — here the way the baseline used to run.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// Before bench/settings.ts is loaded: the bench runs its children on this node, not on a fetched one.
process.env.BENCH_NODE = process.execPath;
const { buildBundles, checkRuntime, startBaseline } = await import('../../bench/processes.ts');
const { BASELINE, ROOT, START } = await import('../../bench/settings.ts');

let database: TestDatabase;
const started: ChildProcess[] = [];
beforeAll(async () => {
  database = await createTestDatabase(1);
  buildBundles();
}, 120_000);
afterAll(async () => {
  for (const child of started) child.kill('SIGKILL');
  await database?.drop();
});

/** A baseline started some other way, until it says it listens; shaped as the bench's Child for checkRuntime. */
async function startOtherwise(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, DATABASE_URL: database.url, PORT: '0', ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(proc);
  let out = '';
  proc.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  for await (const chunk of proc.stdout!) if (String(chunk).includes('listening')) break;
  if (proc.exitCode !== null) throw new Error(`baseline exited: ${out}`);
  return { name: 'baseline', pid: proc.pid!, port: 0, stop: async () => void proc.kill(), output: () => out };
}

const expected = () => ({ node: process.execPath, flags: START.nodeFlags });

describe('the bench checks how service and baseline run before measuring', () => {
  it('accepts the baseline as the bench starts it: the bundle of this build, same node, npm start’s flags, no loader', async () => {
    const baseline = await startBaseline(database.url);
    try {
      const described = checkRuntime(baseline, BASELINE.entry, expected());
      expect(described).toBe([process.execPath, ...START.nodeFlags, BASELINE.entry].join(' '));
      expect(described).not.toMatch(/tsx|--import|--loader/);
    } finally {
      await baseline.stop();
    }
  });

  it('refuses the baseline as it used to run: TypeScript through the tsx loader, without the flags', async () => {
    const old = await startOtherwise(['--import', 'tsx', BASELINE.source]);
    expect(() => checkRuntime(old, BASELINE.entry, expected())).toThrow(
      /refusing to measure: baseline runs under a loader or preload \(--import\); does not run the bundle \.build\/bench\/baseline\/server\.mjs; lacks the flags --max-old-space-size=256/,
    );
  });

  it('refuses the bundle with a loader slipped in through NODE_OPTIONS', async () => {
    const hidden = await startOtherwise([...START.nodeFlags, BASELINE.entry], { NODE_OPTIONS: '--import tsx' });
    expect(() => checkRuntime(hidden, BASELINE.entry, expected())).toThrow(/runs under a loader or preload \(--import\)/);
  });
});
