// A tool may declare a stricter per-key limit than the key's own: images.search_stock allows 30 calls a minute
// per key, counted over REST and MCP together and reported as its own policy in the RateLimit headers.
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';
import { sendJson, startLocalServer, type LocalServer } from '../outbound/local-server.ts';

const OPENVERSE = JSON.parse(readFileSync(new URL('./images-fixtures/openverse-search.json', import.meta.url), 'utf8')).response;
const POLICY = '"images.search_stock";q=30;w=60';

let provider: LocalServer;
let providerCalls = 0;
let t: TestApp;
beforeAll(async () => {
  provider = await startLocalServer((_req, res) => {
    providerCalls++;
    sendJson(res, 200, OPENVERSE);
  });
  t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: '1', OPENVERSE_API_URL: provider.origin } });
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

it('allows 30 calls a minute per key, reports them as their own policy, then answers 429 until the window ends', async () => {
  const key = await t.key(['marketing:write', 'catalog:read']);
  for (let i = 1; i <= 30; i++) {
    const res = await t.call('images.search_stock', { query: 'bark' }, key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['ratelimit-policy']).toContain(POLICY);
    expect(res.headers.ratelimit).toMatch(new RegExp(`"images.search_stock";r=${30 - i};t=\\d+`));
  }
  const limited = await t.call('images.search_stock', { query: 'bark' }, key);
  const problem = expectProblem(limited, 429, 'rate_limited');
  expect(problem.detail).toBe('Rate limit "images.search_stock" of 30 requests per 60 s exceeded.');
  expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  expect(limited.headers.ratelimit).toMatch(/"images\.search_stock";r=0;t=\d+/);

  // The key's other tools are not limited by it, and do not report its policy.
  const other = await t.call('products.search', {}, key);
  expect(other.statusCode).toBe(200);
  expect(other.headers['ratelimit-policy']).not.toContain('images.search_stock');
  // Another key has its own 30.
  expect((await t.call('images.search_stock', { query: 'bark' }, await t.key(['marketing:write']))).statusCode).toBe(200);
});

it('counts MCP calls against the same budget as REST', async () => {
  const key = await t.key(['marketing:write']);
  for (let i = 0; i < 29; i++) expect((await t.call('images.search_stock', { query: 'bark' }, key)).statusCode).toBe(200);

  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const client = new Client({ name: 'rate-limit-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  try {
    const last = (await client.callTool({ name: 'images.search_stock', arguments: { query: 'bark' } })) as CallToolResult;
    expect(last.isError).toBeFalsy();
    const over = (await client.callTool({ name: 'images.search_stock', arguments: { query: 'bark' } })) as CallToolResult;
    expect(over.isError).toBe(true);
    const text = over.content[0];
    expect(text?.type === 'text' && JSON.parse(text.text)).toMatchObject({ status: 429, code: 'rate_limited' });
  } finally {
    await client.close();
  }
});

it('reports the tool’s policy once for an MCP batch that calls it twice, with what is left after both', async () => {
  const key = await t.key(['marketing:write']);
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'images.search_stock', arguments: { query: 'bark' } } });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: [call(1), call(2)],
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['ratelimit-policy']).toBe(`"preauth";q=100000;w=60, "key";q=100000;w=60, ${POLICY}`);
  expect(res.headers.ratelimit).toMatch(/, "images\.search_stock";r=28;t=\d+$/);
});

it('counts each call of an MCP batch against the tool’s limit, and refuses whole a batch that does not fit before any call runs', async () => {
  const key = await t.key(['marketing:write']);
  // Distinct queries, so none is answered from the search cache: each call that runs reaches the provider.
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'images.search_stock', arguments: { query: `batch ${id}` } } });
  const post = (n: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: Array.from({ length: n }, (_, i) => call(i + 1)),
    });
  expect((await t.call('images.search_stock', { query: 'batch rest' }, key)).statusCode).toBe(200);
  const before = providerCalls;
  const refused = await post(30);
  const problem = expectProblem(refused, 429, 'rate_limited');
  expect(problem.detail).toMatch(/"images\.search_stock" of 30 requests per 60 s exceeded by this batch: .* 29 are left; nothing in it ran/);
  expect(refused.headers.ratelimit).toMatch(/"images\.search_stock";r=29;t=\d+/);
  expect(providerCalls).toBe(before);

  const fits = await post(29);
  expect(fits.statusCode, fits.body).toBe(200);
  const replies = JSON.parse(fits.body) as { result: CallToolResult }[];
  expect(replies.filter((r) => !r.result.isError)).toHaveLength(29);
  expect(fits.headers.ratelimit).toMatch(/"images\.search_stock";r=0;t=\d+/);
  expect(providerCalls).toBe(before + 29);
  expectProblem(await t.call('images.search_stock', { query: 'batch after' }, key), 429, 'rate_limited');
});
