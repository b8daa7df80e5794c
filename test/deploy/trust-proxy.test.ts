// Behind a balancer every request arrives from the balancer's address. With TRUST_PROXY naming it (or a hop count),
// the client named in X-Forwarded-For is the client: rate limits, request logs and audit entries use it. A peer that
// is not trusted cannot choose its own address by sending the header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { startServerProcess, type ServerProcess } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { createDeployApp, type DeployApp } from './deploy-app.ts';

const BALANCER = '10.1.0.5';
const STRANGER = '198.51.100.9';

/** Anonymous products.search from `peer` (the socket address) with an optional X-Forwarded-For. */
const search = (t: DeployApp, peer: string, forwardedFor?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/tools/products.search',
    remoteAddress: peer,
    headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    payload: '{}',
  });

const statuses = async (n: number, call: (i: number) => Promise<{ statusCode: number }>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call(i)).statusCode);
  return out;
};

describe('TRUST_PROXY (rate limits key on the client address)', () => {
  const apps: DeployApp[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });
  const appWith = async (trustProxy?: string) => {
    const t = await createDeployApp({ RATE_LIMIT_ANON_MAX: '2', ...(trustProxy ? { TRUST_PROXY: trustProxy } : {}) });
    apps.push(t);
    return t;
  };

  it('off (the default): a forged X-Forwarded-For changes nothing, the socket address is limited', async () => {
    const t = await appWith();
    expect(await statuses(3, (i) => search(t, STRANGER, `203.0.113.${i}`))).toEqual([200, 200, 429]);
  });

  it('with the balancer listed: each client behind it has its own limit', async () => {
    const t = await appWith(`${BALANCER},127.0.0.1`);
    expect(await statuses(3, () => search(t, BALANCER, '203.0.113.1'))).toEqual([200, 200, 429]);
    expect(await statuses(2, () => search(t, BALANCER, '203.0.113.2'))).toEqual([200, 200]);
    // The client prepends a forged address; the balancer appends the real one, which is what counts.
    expect((await search(t, BALANCER, '192.0.2.77, 203.0.113.1')).statusCode).toBe(429);
  });

  it('with the balancer listed: a peer that is not the balancer cannot reset its limit by forging the header', async () => {
    const t = await appWith(`${BALANCER}/32`);
    expect(await statuses(3, (i) => search(t, STRANGER, `203.0.113.${100 + i}`))).toEqual([200, 200, 429]);
  });

  it('with a hop count of 1: the address the nearest proxy appended is the client', async () => {
    const t = await appWith('1');
    expect(await statuses(3, () => search(t, BALANCER, '192.0.2.1, 203.0.113.9'))).toEqual([200, 200, 429]);
    expect((await search(t, BALANCER, '192.0.2.1, 203.0.113.10')).statusCode).toBe(200);
  });
});

describe('TRUST_PROXY in the audit log', () => {
  let t: DeployApp;
  let key: string;
  beforeAll(async () => {
    t = await createDeployApp({ TRUST_PROXY: BALANCER });
    key = (await createKey(t.database.db, { name: 'audited', scopes: ['categories:write'] })).key;
  });
  afterAll(async () => t?.close());

  const headers = (forwardedFor?: string) => ({
    'content-type': 'application/json', authorization: `Bearer ${key}`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
  });
  const upsert = (peer: string, slug: string, forwardedFor?: string) =>
    t.app.inject({ method: 'POST', url: '/api/v1/tools/categories.upsert', remoteAddress: peer, headers: headers(forwardedFor), payload: JSON.stringify({ slug, name: `Category ${slug}` }) });
  const addressOf = async (slug: string) => {
    const category = await t.database.db.category.findUniqueOrThrow({ where: { slug } });
    const entry = await t.database.db.auditEntry.findFirstOrThrow({ where: { entityId: category.id } });
    return entry.clientAddress;
  };

  it('records the client the balancer names, over REST and MCP', async () => {
    expect((await upsert(BALANCER, 'audit-rest', '203.0.113.21')).statusCode).toBe(200);
    const mcp = await t.app.inject({
      method: 'POST', url: '/api/mcp', remoteAddress: BALANCER,
      headers: { ...headers('203.0.113.22'), accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'categories.upsert', arguments: { slug: 'audit-mcp', name: 'Category audit-mcp' } } }),
    });
    expect(mcp.statusCode).toBe(200);
    expect([await addressOf('audit-rest'), await addressOf('audit-mcp')]).toEqual(['203.0.113.21', '203.0.113.22']);
  });

  it('records the socket address when an untrusted peer forges X-Forwarded-For', async () => {
    expect((await upsert(STRANGER, 'audit-forged', '203.0.113.23')).statusCode).toBe(200);
    expect(await addressOf('audit-forged')).toBe(STRANGER);
  });
});

describe('TRUST_PROXY in the request log (a started server)', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], {
      DATABASE_URL: database.url, REDIS_URL: undefined, LOG_LEVEL: 'info', TRUST_PROXY: '127.0.0.1',
    });
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await database?.drop();
  });

  it('logs the forwarded client address and the caller\'s traceparent on each line of the request', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/tools/products.search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.50', traceparent },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    await new Promise((r) => setTimeout(r, 200));
    const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const mine = lines.filter((l) => l.reqId === requestId);
    expect(mine.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    for (const line of mine) expect(line.traceparent).toBe(traceparent);
    expect((mine[0].req as { remoteAddress: string }).remoteAddress).toBe('203.0.113.50');
  });

  it('does not log a malformed traceparent', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/tools/products.search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' },
      body: '{}',
    });
    const requestId = res.headers.get('x-request-id');
    await new Promise((r) => setTimeout(r, 200));
    const mine = server.output().split('\n').filter((l) => l.includes(`"reqId":"${requestId}"`));
    expect(mine).toHaveLength(2);
    for (const line of mine) expect(line).not.toContain('traceparent');
  });
});
