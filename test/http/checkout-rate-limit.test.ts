// Per-platform rate limits of the checkout protocols (docs/agentic-checkout.md, "Rate limits"): one `checkout`
// budget per platform key over /acp and /ucp (RATE_LIMIT_CHECKOUT_MAX), refused with 429 and Retry-After in each
// protocol's own error shape; another platform's budget is its own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acpError, ACP_VERSION } from '../acp/helpers.ts';
import { ucpError } from '../ucp/helpers.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_CHECKOUT_MAX: '3' } });
});
afterAll(async () => {
  await t?.close();
});

const acpGet = (key: string) =>
  t.app.inject({ method: 'GET', url: '/acp/checkout_sessions/cs_missing', headers: { authorization: `Bearer ${key}`, 'api-version': ACP_VERSION } });
const ucpGet = (key: string) =>
  t.app.inject({ method: 'GET', url: '/ucp/checkout-sessions/chk_missing', headers: { authorization: `Bearer ${key}`, 'ucp-agent': 'profile="https://platform.example/profile"' } });

function expectRetryAfter(res: { headers: Record<string, unknown> }) {
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(String(res.headers.ratelimit)).toMatch(/"checkout";r=0;t=\d+/);
}

it('counts a platform’s requests over both protocols and refuses the next one in the protocol’s error shape', async () => {
  const platform = await t.key(['checkout:agent', 'catalog:read']);
  acpError(await acpGet(platform), 404, 'not_found');
  acpError(await acpGet(platform), 404, 'not_found');
  expect((await ucpGet(platform)).statusCode).toBe(404);

  const acp = await acpGet(platform);
  acpError(acp, 429, 'rate_limited');
  expect(acp.json().type).toBe('invalid_request');
  expectRetryAfter(acp);
  const ucp = await ucpGet(platform);
  expect(ucpError(ucp, 429, 'rate_limited').messages[0].severity).toBe('recoverable');
  expectRetryAfter(ucp);

  // Another platform has its own budget, and the service's own tools are not counted against it.
  const other = await t.key(['checkout:agent']);
  acpError(await acpGet(other), 404, 'not_found');
  expect((await t.call('products.search', {}, platform)).statusCode).toBe(200);
});

const mcpGetCheckout = (key: string) =>
  t.app.inject({
    method: 'POST', url: '/api/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}`, 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_checkout', arguments: { meta: { 'ucp-agent': { profile: 'https://platform.example/profile' } }, id: 'chk_missing' } } },
  });

it('counts the UCP binding’s tools over MCP against the same per-platform budget as its REST routes', async () => {
  const platform = await t.key(['checkout:agent', 'catalog:read']);
  expect((await ucpGet(platform)).statusCode).toBe(404);
  for (let i = 0; i < 2; i++) {
    const res = await mcpGetCheckout(platform);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result.structuredContent.messages[0].code).toBe('not_found');
  }
  // The fourth call of the platform, over MCP, is past RATE_LIMIT_CHECKOUT_MAX; its REST budget is spent with it.
  const refused = (await mcpGetCheckout(platform)).json().result;
  expect(refused.isError).toBe(true);
  expect(refused.structuredContent.messages[0]).toMatchObject({ code: 'rate_limited', severity: 'recoverable' });
  ucpError(await ucpGet(platform), 429, 'rate_limited');
  // Tools of the service itself are not counted against it.
  const search = await t.app.inject({
    method: 'POST', url: '/api/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${platform}`, 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'products.search', arguments: {} } },
  });
  expect(search.json().result.isError ?? false).toBe(false);
});
