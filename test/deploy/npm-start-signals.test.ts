// `npm start` is what Docker, systemd and most platforms run, and they stop it with SIGTERM to the npm process itself.
// The signal must reach the server (the start script execs it, so no shell sits in between): it drains, stops the
// embedded PostgreSQL it started, and exits; afterwards nothing listens on the port and no postmaster is left.
// Piped, as a process manager runs it (`npm start --silent`, so npm adds no header of its own), every line it prints
// is one JSON object: the embedded database's steps and the shutdown's included.
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, postmasterPid, startServerProcess } from '../helpers/processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'agent-api-npm-start-'));
  await chmod(dataDir, 0o755);
});
afterAll(async () => {
  const pid = postmasterPid(dataDir);
  if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start under a process manager', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm process stops the server and its embedded PostgreSQL, leaving no orphan`, { timeout: 120_000 }, async () => {
      const server = await startServerProcess(['start', '--silent'], { DATABASE_URL: undefined, REDIS_URL: undefined, DATA_DIR: dataDir }, 90_000, 'npm');
      const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/tools/categories.list`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
      });
      expect(res.status).toBe(200);
      const postmaster = postmasterPid(dataDir)!;
      const { ownerPid: serverPid } = JSON.parse(readFileSync(path.join(dataDir, 'embedded-pg.json'), 'utf8')) as { ownerPid: number };
      expect(serverPid).not.toBe(server.child.pid); // the server is npm's child, not npm itself
      expect([alive(postmaster), alive(serverPid)]).toEqual([true, true]);

      server.child.kill(signal);
      const exit = await Promise.race([server.exited, sleep(30_000).then(() => 'still running')]);
      expect(exit, server.output()).toEqual({ code: 0, signal: null });
      const lines = server.output().split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as { level: number; component?: string; msg: string });
      expect(lines.filter((l) => l.component === 'db').map((l) => l.msg)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^embedded PostgreSQL: started on 127\.0\.0\.1:\d+/), expect.stringMatching(/^embedded PostgreSQL: stopping/)]),
      );
      expect(lines.filter((l) => l.component === 'server').map((l) => l.msg)).toContain(`${signal}: draining in-flight requests, then stopping`);
      expect(alive(serverPid)).toBe(false);
      expect(alive(postmaster)).toBe(false);
      expect(await connects(server.port)).toBe(false);
    });
  }
});
