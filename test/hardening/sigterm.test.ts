// Graceful shutdown under load (README, docs/architecture.md): the real server (`node --import tsx src/server.ts`, the source
// `npm start` bundles; test/hardening/embedded-shutdown.test.ts runs the bundle itself) on a test database and a free port. 50 requests are made slow on purpose — another session holds an
// exclusive lock on "Product", so every products.search waits in PostgreSQL or for a pool connection — then the
// process gets SIGTERM. It must stop accepting connections at once, answer every in-flight request with 200 once the
// lock is released, and exit with code 0.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { makeProduct } from '../helpers/factories.ts';
import { startServerProcess, type ServerProcess } from '../helpers/processes.ts';

const IN_FLIGHT = 50;
const POOL = 20;

let database: TestDatabase;
let child: ChildProcess | undefined;
let port: number;
let server: ServerProcess;
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One POST on its own connection (no keep-alive), resolving with the status and body. */
function post(tool: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      { host: '127.0.0.1', port, path: `/api/v1/tools/${tool}`, method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Whether a new TCP connection to the server's port is accepted. */
function connects(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  await makeProduct(database.db, { slug: 'sigterm-aviator', name: 'Sigterm Aviator' });
  // Without REDIS_URL: in-process rate-limit counters for this server.
  server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], {
    REDIS_URL: undefined,
    DATABASE_URL: database.url,
    DB_POOL_MAX: String(POOL),
    RATE_LIMIT_ANON_MAX: '100000',
    RATE_LIMIT_PREAUTH_MAX: '100000',
    RATE_LIMIT_AUTH_MAX: '100000',
  }, 45_000);
  ({ child, port, exited } = server);
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
  await database?.drop();
});

describe('SIGTERM during load (src/server.ts, src/shutdown.ts)', () => {
  it(`${IN_FLIGHT} in-flight requests finish with 200, new connections are refused, exit code 0`, async () => {
    expect((await post('products.search', { q: 'Sigterm' })).status).toBe(200);

    // Make every search wait: an exclusive lock on "Product" held by another session.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    let released = false;
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE "Product" IN ACCESS EXCLUSIVE MODE');
      const inFlight = Array.from({ length: IN_FLIGHT }, () => post('products.search', { q: 'Sigterm' }));

      // Wait until the server's whole pool is blocked on the lock: the requests are in flight inside the service.
      // (Polled from a second session: pg_stat_activity is a snapshot that stays frozen inside the holder's
      // transaction.) The lock is held for about a second, well below the pool's 5 s connection wait.
      const dbName = new URL(database.url).pathname.slice(1);
      const observer = new pg.Client({ connectionString: database.url });
      await observer.connect();
      try {
        const waitDeadline = Date.now() + 4_000;
        for (;;) {
          const { rows } = await observer.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`,
            [dbName],
          );
          if (rows[0].n >= POOL) break;
          if (Date.now() > waitDeadline) throw new Error(`only ${rows[0].n} of ${POOL} pool connections reached the lock`);
          await sleep(25);
        }
      } finally {
        await observer.end();
      }
      await sleep(200); // the remaining requests are queued for a pool connection by now

      child!.kill('SIGTERM');
      await sleep(300);
      // Stopped accepting: a new connection is refused while the in-flight requests are still waiting.
      expect(await connects()).toBe(false);
      expect(child!.exitCode).toBeNull();

      await holder.query('COMMIT');
      released = true;
      const responses = await Promise.all(inFlight);
      expect(responses.map((r) => r.status)).toEqual(Array(IN_FLIGHT).fill(200));
      for (const r of responses) expect(JSON.parse(r.body).result.map((p: { slug: string }) => p.slug)).toEqual(['sigterm-aviator']);
    } finally {
      if (!released) await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }

    const { code, signal } = await Promise.race([
      exited,
      sleep(20_000).then(() => ({ code: -1, signal: null })),
    ]);
    expect({ code, signal }, server.output()).toEqual({ code: 0, signal: null });
    expect(await connects()).toBe(false);
  }, 60_000);
});
