// `npm start` without DATABASE_URL runs an embedded PostgreSQL under DATA_DIR (src/db/open-database.ts). On SIGTERM
// the server must stop it — unless another process (the CLI, say) is still connected, in which case it is left
// running for that process and adopted by the next start. The server's own pool, closed a moment earlier, must not
// count as "another process": it used to, so the embedded server was left running after every stop.
// The server runs as `npm start` runs it: the esbuild bundle of scripts/build.mjs, which this also proves works.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, postmasterPid, startServerProcess } from '../helpers/processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'agent-api-shutdown-'));
  await chmod(dataDir, 0o755);
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
}, 60_000);
afterAll(async () => {
  const pid = postmasterPid(dataDir);
  if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs the built server on the embedded database until /health answers and one tool call has used the pool. */
async function startServer() {
  const server = await startServerProcess(['.build/src/server.mjs'], { DATABASE_URL: undefined, REDIS_URL: undefined, DATA_DIR: dataDir });
  const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/tools/categories.list`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
  });
  expect(res.status).toBe(200);
  return {
    stop: async () => {
      server.child.kill('SIGTERM');
      return { code: (await server.exited).code, output: server.output() };
    },
  };
}

/** A client of another process, as the CLI would be, on the embedded server's admin database. */
async function otherProcessClient(): Promise<pg.Client> {
  const { port, password } = JSON.parse(readFileSync(path.join(dataDir, 'embedded-pg.json'), 'utf8')) as { port: number; password: string };
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres', application_name: 'agent-api:cli' });
  await client.connect();
  return client;
}

describe('embedded PostgreSQL at shutdown (src/db/open-database.ts)', () => {
  it('is left running while another process is connected, then stopped by the next server that adopts it', { timeout: 120_000 }, async () => {
    const first = await startServer();
    const cli = await otherProcessClient();
    const firstStop = await first.stop();
    expect(firstStop.code).toBe(0);
    expect(firstStop.output).toContain('left running: another process is still connected');
    const pid = postmasterPid(dataDir);
    expect(pid !== null && alive(pid)).toBe(true);
    await cli.end();

    const second = await startServer();
    expect(postmasterPid(dataDir)).toBe(pid);
    const secondStop = await second.stop();
    expect(secondStop.code).toBe(0);
    expect(secondStop.output).not.toContain('left running');
    for (const deadline = Date.now() + 10_000; alive(pid!) && Date.now() < deadline; ) await sleep(100);
    expect(alive(pid!)).toBe(false);
  });
});
