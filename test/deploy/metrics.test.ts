// GET /metrics (Prometheus text, prom-client) on its own listener: requests by surface, tool and status with
// latency histograms, rate-limit refusals by policy, idempotent replays, the database pool, event-loop lag and the
// default process metrics. The public port never serves it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { serveMetrics } from '../../src/metrics/server.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { createDeployApp, type DeployApp } from './deploy-app.ts';

let t: DeployApp;
let metricsUrl: string;
let closeMetrics: () => Promise<void>;
let key: string;

beforeAll(async () => {
  const database = await createTestDatabase();
  const metrics = createMetrics(database.db);
  t = await createDeployApp({ RATE_LIMIT_ANON_MAX: '3' }, { metrics }, database);
  const served = await serveMetrics(metrics, { host: '127.0.0.1', port: 0 });
  metricsUrl = `http://127.0.0.1:${served.port}/metrics`;
  closeMetrics = served.close;
  key = (await createKey(database.db, { name: 'metrics', scopes: ['categories:write'] })).key;
});
afterAll(async () => {
  await closeMetrics?.();
  await t?.close();
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
const mcp = (body: unknown, headers: Record<string, string> = {}) => post('/api/mcp', body, { accept: 'application/json, text/event-stream', ...headers });

/** The value of one sample line, by metric name and exact label set (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m && m[1] === name && (m[2] ?? '').split(',').filter(Boolean).sort().join(',') === wanted) return Number(m[3]);
  }
  return 0;
}

describe('metrics (src/metrics/)', () => {
  it('count each surface, tool and status with latency, refusals by policy and replays', async () => {
    for (let i = 0; i < 2; i++) expect((await post('/api/v1/tools/products.search', {})).statusCode).toBe(200);
    expect((await post('/api/v1/tools/no.such_tool', {})).statusCode).toBe(404);
    expect((await post('/api/v1/tools/products.search', {})).statusCode).toBe(429); // 4th anonymous call over a limit of 3
    const auth = { authorization: `Bearer ${key}` };
    const upsert = { slug: 'metrics-cat', name: 'Metrics category' };
    expect((await post('/api/v1/tools/categories.upsert', upsert, { ...auth, 'idempotency-key': 'm-1' })).statusCode).toBe(200);
    const replayed = await post('/api/v1/tools/categories.upsert', upsert, { ...auth, 'idempotency-key': 'm-1' });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    const call = await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'categories.list', arguments: {} } }, auth);
    expect(call.statusCode).toBe(200);
    expect((await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, auth)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    const res = await fetch(metricsUrl);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const count = (surface: string, tool: string, status: number) =>
      sample(text, 'agent_api_request_duration_seconds_count', { surface, tool, status: String(status) });
    expect({
      searches: count('rest', 'products.search', 200),
      refused: count('rest', 'products.search', 429),
      unknownTool: count('rest', '-', 404),
      upserts: count('rest', 'categories.upsert', 200),
      mcpCall: count('mcp', 'categories.list', 200),
      mcpList: count('mcp', '-', 200),
      page: count('page', '-', 200),
      anonRefusals: sample(text, 'agent_api_rate_limit_refusals_total', { policy: 'anon' }),
      restReplays: sample(text, 'agent_api_idempotent_replays_total', { surface: 'rest' }),
    }).toEqual({ searches: 2, refused: 1, unknownTool: 1, upserts: 2, mcpCall: 1, mcpList: 1, page: 1, anonRefusals: 1, restReplays: 1 });
    // Probes are not counted; every request above lands in a latency bucket.
    expect(text).not.toContain('/readyz');
    expect(sample(text, 'agent_api_request_duration_seconds_bucket', { surface: 'rest', tool: 'products.search', status: '200', le: '+Inf' })).toBe(2);
    for (const name of ['agent_api_db_pool_connections', 'agent_api_db_pool_waiting', 'nodejs_eventloop_lag_seconds', 'process_cpu_seconds_total', 'process_resident_memory_bytes']) {
      expect(text).toMatch(new RegExp(`^${name}[ {]`, 'm'));
    }
    expect(sample(text, 'agent_api_db_pool_waiting')).toBe(0);
  });

  it('counts a replay over MCP', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const params = { name: 'categories.upsert', arguments: { slug: 'metrics-mcp', name: 'Metrics MCP' }, _meta: { idempotencyKey: 'm-2' } };
    for (const id of [1, 2]) expect((await mcp({ jsonrpc: '2.0', id, method: 'tools/call', params }, auth)).statusCode).toBe(200);
    const text = await (await fetch(metricsUrl)).text();
    expect(sample(text, 'agent_api_idempotent_replays_total', { surface: 'mcp' })).toBe(1);
  });

  it('are not served on the public port, and the metrics listener serves nothing else', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
  });
});
