// Discovery: the business profile at /.well-known/ucp (valid against the protocol's profile schema), and the MCP
// binding's tools on /api/mcp, listed to keys with checkout:agent only and callable there.
import { describe, expect, it } from 'vitest';
import { addSigningKey, retireSigningKey } from '../../src/protocols/ucp/signing.ts';
import { createTestApp } from '../helpers/app.ts';
import { createBody, CHECKOUT_SCHEMAS, ERROR_SCHEMA, expectValid, PROFILE_SCHEMA, useUcp } from './helpers.ts';

const ctx = useUcp();

const UCP_TOOLS = ['cancel_checkout', 'complete_checkout', 'create_checkout', 'get_checkout', 'get_order', 'update_checkout'];

async function mcp(key: string, method: string, params: Record<string, unknown> = {}) {
  const res = await ctx.t.app.inject({
    method: 'POST', url: '/api/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}`, 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 1, method, params },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

describe('/.well-known/ucp', () => {
  it('publishes the shopping service over REST and MCP, the capabilities, payment handlers and signing keys', async () => {
    const res = await ctx.t.app.inject({ method: 'GET', url: '/.well-known/ucp' });
    expect(res.statusCode).toBe(200);
    const profile = res.json();
    expectValid(profile, [PROFILE_SCHEMA]);
    expect(profile.ucp.version).toBe('2026-04-08');
    const services = profile.ucp.services['dev.ucp.shopping'];
    expect(services.map((s: { transport: string }) => s.transport)).toEqual(['rest', 'mcp']);
    expect(services[0].endpoint).toMatch(/\/ucp$/);
    expect(services[1].endpoint).toMatch(/\/api\/mcp$/);
    expect(Object.keys(profile.ucp.capabilities)).toEqual(expect.arrayContaining([
      'dev.ucp.shopping.checkout', 'dev.ucp.shopping.fulfillment', 'dev.ucp.shopping.discount', 'dev.ucp.shopping.order',
    ]));
    expect(profile.ucp.payment_handlers['dev.agent_api.test_payment'][0].id).toBe('mock_payment_handler');
    expect(profile.signing_keys).toEqual([expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })]);
    expect(JSON.stringify(profile)).not.toMatch(/"d":/);
  });

  it('publishes every signing key during a rotation, the new one first, until the old one is retired', async () => {
    const profile = async () => (await ctx.t.app.inject({ method: 'GET', url: '/.well-known/ucp' })).json().signing_keys as Array<{ kid: string }>;
    const [old] = await profile();
    const kid = await addSigningKey(ctx.t.db, ctx.t.secrets, new Date(Date.now() + 1000));
    expect((await profile()).map((k) => k.kid)).toEqual([kid, old.kid]);
    expect(await retireSigningKey(ctx.t.db, old.kid)).toBe(true);
    expect((await profile()).map((k) => k.kid)).toEqual([kid]);
  });

  it('offers no test payment handler in production', async () => {
    const prod = await createTestApp({ env: { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://shop.example.com' } });
    try {
      const profile = (await prod.app.inject({ method: 'GET', url: '/.well-known/ucp' })).json();
      expect(profile.ucp.payment_handlers).toEqual({});
      expect(profile.ucp.services['dev.ucp.shopping'][0].endpoint).toBe('https://shop.example.com/ucp');
    } finally {
      await prod.close();
    }
  });
});

describe('the MCP binding', () => {
  it('lists the UCP tools to keys with checkout:agent only', async () => {
    const names = (key: string) => mcp(key, 'tools/list').then((r) => (r.tools as Array<{ name: string }>).map((x) => x.name));
    const platformTools = await names(ctx.p.key);
    expect(platformTools).toEqual(expect.arrayContaining(UCP_TOOLS));
    // Besides them only the anonymous catalogue reads: nothing of the shop's administration.
    expect(platformTools.filter((n) => !UCP_TOOLS.includes(n)).every((n) => /^(products|categories|site|services)\./.test(n))).toBe(true);
    const admin = await ctx.t.key(['orders:read', 'cart:write']);
    expect(await names(admin)).not.toContain('create_checkout');
  });

  it('creates and reads a checkout through tools/call, with the idempotency key in meta', async () => {
    const meta = { 'ucp-agent': { profile: ctx.p.profileUrl }, 'idempotency-key': '0b4e8c1e-5a4f-4c53-9d55-8f1d4d1a7f01' };
    const created = await mcp(ctx.p.key, 'tools/call', { name: 'create_checkout', arguments: { meta, checkout: createBody() } });
    expect(created.isError, JSON.stringify(created)).toBeFalsy();
    const c = created.structuredContent.result;
    expectValid(c, CHECKOUT_SCHEMAS);
    const again = await mcp(ctx.p.key, 'tools/call', { name: 'create_checkout', arguments: { meta, checkout: createBody() } });
    expect(again.structuredContent.result.id).toBe(c.id);
    const read = await mcp(ctx.p.key, 'tools/call', { name: 'get_checkout', arguments: { meta: { 'ucp-agent': { profile: ctx.p.profileUrl } }, id: c.id } });
    expect(read.structuredContent.result.id).toBe(c.id);
    // A failure is the protocol's error response.
    const missing = await mcp(ctx.p.key, 'tools/call', { name: 'get_checkout', arguments: { meta: { 'ucp-agent': { profile: ctx.p.profileUrl } }, id: 'chk_none' } });
    expect(missing.isError).toBe(true);
    expectValid(missing.structuredContent, [ERROR_SCHEMA]);
    expect(missing.structuredContent.messages[0].code).toBe('not_found');
  });
});
