// Two instances behind a real HAProxy (Debian's haproxy), on one PostgreSQL and one Redis, all started and stopped
// here: the deployment docs/deploy.md describes. The balancer health-checks GET /readyz, adds X-Forwarded-For and
// names the instance that answered in X-Served-By. It retries nothing (docs/deploy.md allows retrying failed
// connections; without it, a request lost in a restart shows up here as a failure). Each scenario prints what it
// measured.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey, rotateKey } from '../../src/auth/key-admin.ts';
import { CHECKOUT_CONTACT, makeProduct } from '../helpers/factories.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/processes.ts';
import { obtainTokens, registerClient } from '../oauth/mcp-host.ts';

const haveHaproxy = spawnSync('haproxy', ['-v']).status === 0;
const haveRedis = spawnSync('redis-server', ['--version']).status === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ANON_MAX = 60;
/**
 * The balancer's checks: every 500 ms, down after 2 failures, up after 2 successes. A check may take 2 s: on a busy
 * machine a healthy /readyz can take longer than the interval, and a too-eager timeout takes healthy instances out.
 */
const CHECK = { interMs: 500, fall: 2, rise: 2, timeoutMs: 2_000 };
/** Twice what the balancer needs to see a failing /readyz (fall × inter, plus the check in flight): CI machines are busy. */
const DRAIN_DELAY_MS = 4_000;

let dir: string;
let database: TestDatabase;
let redis: { port: number; proc?: ChildProcess };
let haproxy: { port: number; proc: ChildProcess; socket: string };
const instances: Record<'a' | 'b', { port: number; server?: ServerProcess }> = { a: { port: 0 }, b: { port: 0 } };

type Reply = { status: number; servedBy: string; headers: http.IncomingHttpHeaders; body: string };

/** A client of the balancer with its own source address (127.0.0.0/8 is all loopback) and keep-alive connections. */
function client(sourceAddress: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32, localAddress: sourceAddress });
  return {
    post(tool: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
      const payload = JSON.stringify(body);
      return new Promise((resolve) => {
        const req = http.request(
          { host: '127.0.0.1', port: haproxy.port, path: `/api/v1/tools/${tool}`, method: 'POST', agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, servedBy: String(res.headers['x-served-by'] ?? ''), headers: res.headers, body: text }));
            res.on('error', () => resolve({ status: 0, servedBy: '', headers: {}, body: 'response aborted' }));
          },
        );
        req.on('error', (err) => resolve({ status: 0, servedBy: '', headers: {}, body: err.message }));
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/** One line of HAProxy's runtime API (its stats socket). */
function haproxyCommand(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(haproxy.socket);
    let out = '';
    socket.on('data', (c) => (out += c.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.end(`${command}\n`);
  });
}

/** The balancer's view of an instance: UP, DOWN, or a transition such as "UP 1/2". */
async function balancerStatus(name: 'a' | 'b'): Promise<string> {
  const csv = await haproxyCommand('show stat');
  const header = csv.split('\n')[0].replace(/^# /, '').split(',');
  const row = csv.split('\n').map((l) => l.split(',')).find((r) => r[0] === 'api' && r[1] === name);
  return row ? row[header.indexOf('status')] : 'missing';
}

async function waitFor<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await sleep(50);
  }
}

async function startInstance(name: 'a' | 'b') {
  instances[name].server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], {
    PORT: String(instances[name].port),
    // Both instances are one service at the balancer's address, as a deployment configures them: an OAuth token
    // obtained through the balancer is for either one called directly.
    PUBLIC_BASE_URL: `http://127.0.0.1:${haproxy.port}`,
    DATABASE_URL: database.url,
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    TRUST_PROXY: '127.0.0.1',
    DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
    RATE_LIMIT_ANON_MAX: String(ANON_MAX),
    RATE_LIMIT_PREAUTH_MAX: '1000000',
    RATE_LIMIT_AUTH_MAX: '1000000',
    DB_POOL_MAX: '10',
  });
  await waitFor(`the balancer to see ${name} UP`, () => balancerStatus(name), (s) => s === 'UP');
}

async function stopInstance(name: 'a' | 'b', signal: NodeJS.Signals) {
  const server = instances[name].server!;
  server.child.kill(signal);
  const exit = await server.exited;
  instances[name].server = undefined;
  return { exit, output: server.output() };
}

async function startRedis() {
  redis.proc = spawn('redis-server', ['--port', String(redis.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitFor('redis', () => new Promise<boolean>((resolve) => {
    const s = net.connect(redis.port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  }), Boolean);
}

async function stopRedis() {
  const proc = redis.proc!;
  redis.proc = undefined;
  proc.kill('SIGKILL');
  await new Promise((r) => proc.once('exit', r));
}

/**
 * Calls products.search (authenticated: the per-key limit is far away) in `workers` loops until stop() is called;
 * returns every status seen, with the failures' details.
 */
function steadyLoad(key: string, workers = 2) {
  const c = client('127.0.0.20');
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const r = await c.post('products.search', { q: 'Balancer' }, { authorization: `Bearer ${key}` });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status !== 200) failures.push(`${r.status} ${r.body.slice(0, 200)}`);
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      c.close();
      return { total: [...statuses.values()].reduce((a, b) => a + b, 0), statuses: Object.fromEntries(statuses), failures };
    },
  };
}

beforeAll(async () => {
  if (!haveHaproxy || !haveRedis) return;
  dir = await mkdtemp(path.join(tmpdir(), 'agent-api-lb-'));
  database = await createTestDatabase();
  await makeProduct(database.db, { slug: 'balancer-frame', name: 'Balancer Frame', stock: 1_000 });
  redis = { port: await freePort() };
  await startRedis();
  instances.a.port = await freePort();
  instances.b.port = await freePort();
  haproxy = { port: await freePort(), socket: path.join(dir, 'haproxy.sock'), proc: undefined as never };
  const config = path.join(dir, 'haproxy.cfg');
  await writeFile(config, `
global
  stats socket ${haproxy.socket} mode 600 level admin
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout check ${CHECK.timeoutMs}ms
  retries 0
frontend public
  bind 127.0.0.1:${haproxy.port}
  default_backend api
backend api
  balance roundrobin
  option forwardfor
  option httpchk GET /readyz
  http-check expect status 200
  http-response set-header X-Served-By %[srv_name]
  default-server inter ${CHECK.interMs}ms fall ${CHECK.fall} rise ${CHECK.rise}
  server a 127.0.0.1:${instances.a.port} check
  server b 127.0.0.1:${instances.b.port} check
`);
  haproxy.proc = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  await waitFor('haproxy', () => haproxyCommand('show info').then(() => true, () => false), Boolean);
  await Promise.all([startInstance('a'), startInstance('b')]);
}, 120_000);

afterAll(async () => {
  for (const name of ['a', 'b'] as const) {
    const server = instances[name].server;
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  }
  haproxy?.proc?.kill('SIGTERM');
  if (redis?.proc) await stopRedis();
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!haveHaproxy || !haveRedis)('two instances behind HAProxy on one PostgreSQL and Redis', () => {
  it('share one exact anonymous limit per client, keyed on the client address the balancer forwards', { timeout: 60_000 }, async () => {
    const shopper = client('127.0.0.2');
    // Half the calls carry a forged X-Forwarded-For: the client is not a trusted proxy, so it changes nothing.
    const replies = await Promise.all(
      Array.from({ length: 80 }, (_, i) => shopper.post('products.search', {}, i % 2 ? { 'x-forwarded-for': `198.51.100.${i}` } : {})),
    );
    shopper.close();
    const passed = replies.filter((r) => r.status === 200);
    const servedBy = { a: passed.filter((r) => r.servedBy === 'a').length, b: passed.filter((r) => r.servedBy === 'b').length };
    console.log(`[lb] anonymous limit ${ANON_MAX}: ${passed.length} of 80 passed (a ${servedBy.a}, b ${servedBy.b}), ${replies.filter((r) => r.status === 429).length} refused`);
    expect(passed).toHaveLength(ANON_MAX);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(80 - ANON_MAX);
    expect(servedBy.a).toBeGreaterThan(0);
    expect(servedBy.b).toBeGreaterThan(0);
    // Another client behind the same balancer has a limit of its own.
    const other = client('127.0.0.3');
    expect((await other.post('products.search', {})).status).toBe(200);
    other.close();
  });

  it('refuse a revoked key on both instances within 1 s', async () => {
    const { id, key } = await createKey(database.db, { name: 'revoked-behind-lb', scopes: ['catalog:read'] });
    const direct = (name: 'a' | 'b') =>
      fetch(`http://127.0.0.1:${instances[name].port}/api/v1/tools/products.search`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: '{}',
      }).then((r) => r.status);
    expect([await direct('a'), await direct('b')]).toEqual([200, 200]); // both have it in their key cache now
    await revokeKey(database.db, id);
    const revokedAt = Date.now();
    const refusedAfter = await Promise.all((['a', 'b'] as const).map(async (name) => {
      await waitFor(`${name} to refuse the key`, () => direct(name), (s) => s === 401, 5_000);
      return Date.now() - revokedAt;
    }));
    console.log(`[lb] revoked key refused by a after ${refusedAfter[0]} ms, by b after ${refusedAfter[1]} ms`);
    expect(Math.max(...refusedAfter)).toBeLessThan(1_000);
  });

  it('end the OAuth grants of a revoked or rotated key on both instances within 1 s, access and refresh tokens alike', { timeout: 60_000 }, async () => {
    const lb = `http://127.0.0.1:${haproxy.port}`;
    const clientId = await registerClient(lb, 'Host behind the balancer');
    const at = (name: 'a' | 'b', path: string, init: RequestInit) => fetch(`http://127.0.0.1:${instances[name].port}${path}`, init).then((r) => r.status);
    const callTool = (name: 'a' | 'b', token: string) =>
      at(name, '/api/v1/tools/features.list', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
    const refresh = (name: 'a' | 'b', token: string) =>
      at(name, '/oauth/token', {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId }),
      });
    const measured: string[] = [];
    for (const end of ['revoke', 'rotate'] as const) {
      const operator = await createKey(database.db, { name: `oauth-${end}-behind-lb`, scopes: ['features:read'] });
      const tokens = await obtainTokens(lb, { clientId, operatorKey: operator.key, resource: `${lb}/api/v1`, scope: 'features:read' });
      expect([await callTool('a', tokens.access_token), await callTool('b', tokens.access_token)]).toEqual([200, 200]); // both have it cached now
      const { grantsEnded } = end === 'revoke' ? await revokeKey(database.db, operator.id) : await rotateKey(database.db, operator.id);
      const endedAt = Date.now();
      expect(grantsEnded).toBe(1);
      const refusedAfter = await Promise.all((['a', 'b'] as const).map(async (name) => {
        await waitFor(`${name} to refuse the access token`, () => callTool(name, tokens.access_token), (s) => s === 401, 5_000);
        return Date.now() - endedAt;
      }));
      expect([await refresh('a', tokens.refresh_token), await refresh('b', tokens.refresh_token)]).toEqual([400, 400]);
      measured.push(`${end}: access token refused by a after ${refusedAfter[0]} ms, by b after ${refusedAfter[1]} ms`);
      expect(Math.max(...refusedAfter)).toBeLessThan(1_000);
    }
    console.log(`[lb] grants of an ended key: ${measured.join('; ')}; refresh refused on both`);
  });

  it('place each idempotent checkout exactly once when an instance is SIGKILLed during the burst and every failure is retried', { timeout: 90_000 }, async () => {
    const CHECKOUTS = 200;
    const { key } = await createKey(database.db, { name: 'checkout-behind-lb', scopes: ['cart:write'] });
    const auth = { authorization: `Bearer ${key}` };
    const shopper = client('127.0.0.4');
    const product = await database.db.product.findUniqueOrThrow({ where: { slug: 'balancer-frame' } });
    const carts: string[] = [];
    while (carts.length < CHECKOUTS) {
      const made = await Promise.all(Array.from({ length: 20 }, () => shopper.post('cart.create', { items: [{ productSlug: 'balancer-frame', quantity: 1 }] }, auth)));
      for (const r of made) {
        expect(r.status).toBe(200);
        carts.push((JSON.parse(r.body) as { result: { cartId: string } }).result.cartId);
      }
    }
    let attempts = 0;
    let retried = 0;
    let done = 0;
    const checkout = async (cartId: string, i: number) => {
      for (let attempt = 1; ; attempt++) {
        attempts++;
        const r = await shopper.post('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, { ...auth, 'idempotency-key': `lb-checkout-${i}` });
        if (r.status === 200) {
          done++;
          return JSON.parse(r.body) as { result: { orderId: string } };
        }
        // Retryable: no answer, a 5xx, or "still running" (the killed instance's transaction has not ended yet).
        const inProgress = r.status === 409 && r.body.includes('"idempotency_in_progress"');
        if (r.status !== 0 && r.status < 500 && !inProgress) throw new Error(`checkout ${i}: ${r.status} ${r.body}`);
        retried++;
        if (attempt > 40) throw new Error(`checkout ${i} kept failing: ${r.status} ${r.body}`);
        await sleep(Math.min(100 * attempt, 1_000)); // backing off, as a client should
      }
    };
    const killer = (async () => {
      await waitFor('a quarter of the checkouts', async () => done, (n) => n >= CHECKOUTS / 4);
      return stopInstance('a', 'SIGKILL');
    })();
    const results: Array<{ result: { orderId: string } }> = [];
    for (let i = 0; i < CHECKOUTS; i += 20) {
      // 20 at a time: a burst that keeps both instances busy while one of them is killed.
      results.push(...(await Promise.all(carts.slice(i, i + 20).map((cartId, j) => checkout(cartId, i + j)))));
    }
    const killed = await killer;
    shopper.close();
    expect(killed.exit.signal).toBe('SIGKILL');

    const orderIds = new Set(results.map((r) => r.result.orderId));
    const orders = await database.db.order.count();
    const stock = Number((await database.db.product.findUniqueOrThrow({ where: { id: product.id } })).stock);
    console.log(`[lb] ${CHECKOUTS} checkouts, SIGKILL of a after ${CHECKOUTS / 4}: ${attempts} attempts, ${retried} retried; ${orders} orders, stock ${product.stock} → ${stock}`);
    expect(orderIds.size).toBe(CHECKOUTS);
    expect(orders).toBe(CHECKOUTS);
    expect(stock).toBe(Number(product.stock) - CHECKOUTS);
    await startInstance('a');
  });

  it('lose no request in a rolling restart under steady load: the draining instance fails readiness before it stops accepting', { timeout: 120_000 }, async () => {
    const { key } = await createKey(database.db, { name: 'rolling-restart', scopes: ['catalog:read'] });
    const load = steadyLoad(key);
    await sleep(500);
    const steps: string[] = [];
    for (const name of ['a', 'b'] as const) {
      const started = Date.now();
      const stopped = stopInstance(name, 'SIGTERM');
      await waitFor(`the balancer to take ${name} out`, () => balancerStatus(name), (s) => s.startsWith('DOWN'));
      const outAfter = Date.now() - started;
      const { exit, output } = await stopped;
      expect(exit, output).toEqual({ code: 0, signal: null });
      expect(output).toContain('SIGTERM: not ready any more');
      await startInstance(name);
      steps.push(`${name}: out of rotation ${outAfter} ms after SIGTERM, back UP ${Date.now() - started} ms after`);
    }
    await sleep(500);
    const result = await load.stop();
    console.log(`[lb] rolling restart: ${steps.join('; ')}; ${result.total} requests, statuses ${JSON.stringify(result.statuses)}`);
    expect(result.failures).toEqual([]);
    expect(result.total).toBeGreaterThan(100);
  });

  it('keep serving with Redis stopped (limits fail open, logged once per outage) and enforce limits again when it returns', { timeout: 90_000 }, async () => {
    const { key } = await createKey(database.db, { name: 'redis-outage', scopes: ['catalog:read'] });
    const logLines = (text: string) => text.split('\n').filter((l) => l.includes('Redis unreachable')).length;
    const before = { a: logLines(instances.a.server!.output()), b: logLines(instances.b.server!.output()) };
    const load = steadyLoad(key);
    await sleep(300);
    await stopRedis();
    await sleep(3_000);
    // During the outage an anonymous client is not limited: more than the limit passes.
    const shopper = client('127.0.0.5');
    const duringOutage = await Promise.all(Array.from({ length: ANON_MAX + 10 }, () => shopper.post('products.search', {})));
    await startRedis();
    await waitFor('both instances to reconnect to Redis', async () =>
      (['a', 'b'] as const).every((n) => instances[n].server!.output().includes('Redis reachable again')), Boolean);
    const result = await load.stop();
    const outageLogs = { a: logLines(instances.a.server!.output()) - before.a, b: logLines(instances.b.server!.output()) - before.b };
    console.log(`[lb] Redis stopped 3 s under load: ${result.total} requests, statuses ${JSON.stringify(result.statuses)}; anonymous during outage ${duringOutage.filter((r) => r.status === 200).length}/${duringOutage.length} passed; outage logged a ×${outageLogs.a}, b ×${outageLogs.b}`);
    expect(result.failures).toEqual([]);
    expect(duringOutage.map((r) => r.status)).toEqual(Array(ANON_MAX + 10).fill(200));
    expect(outageLogs).toEqual({ a: 1, b: 1 });

    // Back: a new client's limit is exact again across both instances.
    const after = client('127.0.0.6');
    const replies = await Promise.all(Array.from({ length: 80 }, () => after.post('products.search', {})));
    after.close();
    shopper.close();
    expect(replies.filter((r) => r.status === 200)).toHaveLength(ANON_MAX);
  });
});
