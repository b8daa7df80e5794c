// tools/list is built once per schema style and scope set (src/mcp/tool-catalog.ts toolListFor): the tool set is
// static, so a restart is the only thing that changes it. Over HTTP the cached list is the one each caller may see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMcpCatalog, toolListFor } from '../../src/mcp/tool-catalog.ts';
import type { Principal } from '../../src/registry/define-tool.ts';
import type { Scope } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const principal = (scopes: Scope[], keyId = 'k'): Principal => ({ keyId, name: 'test', scopes: new Set(scopes) });

describe('toolListFor', () => {
  const catalog = buildMcpCatalog(TOOLS);

  it('hands every caller with the same scopes (in any order) the same list, built once per style', () => {
    const first = toolListFor(catalog, principal(['products:write', 'catalog:read'], 'a'), 'shared');
    expect(toolListFor(catalog, principal(['catalog:read', 'products:write'], 'b'), 'shared')).toBe(first);
    expect(toolListFor(catalog, principal(['catalog:read', 'products:write'], 'b'), 'inline')).not.toBe(first);
    expect(toolListFor(catalog, null, 'shared')).toBe(toolListFor(catalog, null, 'shared'));
  });

  it('lists exactly the tools of the scope set', () => {
    const listed = toolListFor(catalog, principal(['products:write']), 'shared').map((tool) => tool.name);
    expect(listed).toEqual(TOOLS.filter((tool) => tool.anonymous || tool.scope === 'products:write').map((tool) => tool.name).sort());
    expect(toolListFor(catalog, null, 'shared').map((tool) => tool.name)).toEqual(TOOLS.filter((tool) => tool.anonymous).map((tool) => tool.name).sort());
  });
});

describe('tools/list over HTTP from the cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const list = async (key: string | undefined) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.statusCode).toBe(200);
    return res.json<{ result: { tools: { name: string }[] } }>().result.tools.map((tool) => tool.name);
  };

  it('gives two keys with the same scopes the same list, and a key with other scopes its own', async () => {
    const writer = await list(await t.key(['products:write']));
    expect(await list(await t.key(['products:write']))).toEqual(writer);
    const reader = await list(await t.key(['orders:read']));
    expect(reader).toEqual(TOOLS.filter((tool) => tool.anonymous || tool.scope === 'orders:read').map((tool) => tool.name).sort());
    expect(await list(undefined)).toEqual(TOOLS.filter((tool) => tool.anonymous).map((tool) => tool.name).sort());
  });
});
