// startEmbeddedPostgres: one cluster per data directory, shared by concurrent starters (in this process
// and in another one, like the server and the CLI), initialised once, data kept across restarts, the
// port remembered, an orphan left by a killed owner adopted, and stop() leaving no process behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { alive, postmasterPid } from '../helpers/processes.ts';

const CHILD = fileURLToPath(new URL('../helpers/embedded-child.ts', import.meta.url));

type ChildInfo = { url: string; owned: boolean; pid: number };
type Child = { info: Promise<ChildInfo>; proc: ChildProcess; exited: Promise<void> };

function startChild(dataDir: string): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const info = new Promise<ChildInfo>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as ChildInfo);
    });
    void exited.then(() => reject(new Error(`child exited early: ${out}`)));
  });
  return { info, proc, exited };
}

async function query(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

describe('startEmbeddedPostgres', () => {
  let dataDir: string;
  const children: Child[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'agent-api-embedded-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    // Only the server this test started on its own temp data directory.
    const pid = postmasterPid(dataDir);
    if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('shares one new cluster between three concurrent starters in two processes', { timeout: 60_000 }, async () => {
    const child = startChild(dataDir);
    children.push(child);
    const [a, b] = await Promise.all([startEmbeddedPostgres({ dataDir }), startEmbeddedPostgres({ dataDir })]);
    const c = await child.info;

    expect([a.owned, b.owned, c.owned].filter(Boolean)).toHaveLength(1);
    expect(new Set([a.url, b.url, c.url]).size).toBe(1);
    expect(new URL(a.url).port).not.toBe('5432');
    expect(new URL(a.url).pathname).toBe('/agent_api');
    expect(await query(a.url, `SELECT current_database() AS db`)).toEqual([{ db: 'agent_api' }]);

    const pid = postmasterPid(dataDir)!;
    await Promise.all([a, b].filter((x) => !x.owned).map((x) => x.stop()));
    expect(alive(pid)).toBe(true); // a non-owner's stop() leaves the server alone
    if (c.owned) {
      child.proc.stdin!.write('stop\n');
      await child.exited;
    } else {
      await [a, b].find((x) => x.owned)!.stop();
      child.proc.stdin!.end('stop\n');
      await child.exited;
    }
    expect(alive(pid)).toBe(false);
    expect(postmasterPid(dataDir)).toBeNull();
  });

  it('keeps data and port across restarts and adopts a server orphaned by a killed owner', { timeout: 60_000 }, async () => {
    const child = startChild(dataDir);
    children.push(child);
    const first = await child.info;
    expect(first.owned).toBe(true);
    await query(first.url, `CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)`);

    // The owner dies without stopping its server (kill -9): the server keeps running as an orphan.
    child.proc.kill('SIGKILL');
    await child.exited;
    const orphan = postmasterPid(dataDir)!;
    expect(alive(orphan)).toBe(true);

    const adopted = await startEmbeddedPostgres({ dataDir });
    expect(adopted.owned).toBe(true);
    expect(adopted.url).toBe(first.url);
    expect(await query(adopted.url, `SELECT v FROM kept`)).toEqual([{ v: 42 }]);
    await adopted.stop();
    expect(alive(orphan)).toBe(false);
    expect(postmasterPid(dataDir)).toBeNull();

    // A cold start reuses the existing cluster (no re-initialisation) and the remembered port.
    const logs: string[] = [];
    const again = await startEmbeddedPostgres({ dataDir, log: (m) => logs.push(m) });
    try {
      expect(again.owned).toBe(true);
      expect(again.url).toBe(first.url);
      expect(logs.some((m) => m.includes('initialising'))).toBe(false);
      expect(await query(again.url, `SELECT v FROM kept`)).toEqual([{ v: 42 }]);
    } finally {
      await again.stop();
    }
    expect(postmasterPid(dataDir)).toBeNull();
  });
});
