// What a tool list costs an agent, in tokens of a real tokenizer (o200k, gpt-tokenizer): the full tools/list for a
// key with every scope, per schema style, and the lean discovery toolset. docs/agent-surfaces.md quotes these.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/registry/scopes.ts';
import { PROTOCOL_TOOLS, TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

// Issue 12 set 12,000 for the 39 tools of its time (about 308 tokens a tool), and that budget still holds for them on
// both revisions. Fifteen came after it: images.search_stock, the nine webhooks.* tools and issue 27's
// products.set_options and variants.create/update/delete/adjust_stock. The full list (54 tools, about 272 a tool)
// has its own budget: reaching 12,000 would cost agents something they use (output envelope fields, input length
// limits, field descriptions or the layout's section props; docs/agent-surfaces.md has the table of what each
// thousand tokens would cost). Measured: 39 tools 11,479 with $defs and 11,788 inlined; 54 tools 14,730 and 15,039 (a variant's option names exclude "__proto__", as every map key does).
// Issue 28 added orders.payment_link and orders.refund, checkout's payment link (+396 on both) and orders.update_status's
// carrier and tracking fields (+60; the buyer's shipping e-mail shows them, docs/email.md): 39 tools 11,542 and 11,851,
// 56 tools 15,181 and 15,490;
// the budget rose by as much. Issue 29 added webhooks.create's acpPlatformKeyId (+41 on both: an ACP platform's order
// webhook is registered with it, docs/agentic-checkout.md): 56 tools 15,222 and 15,531. Issue 29 also added
// shipping.list_rates, set_rate and delete_rate (+784 on both: shipping rates had no tool, docs/agentic-checkout.md):
// 59 tools 16,006 and 16,315.
const ORIGINAL_TOOLS_BUDGET = 12_000;
const FULL_LIST_BUDGET = 16_315;
const LEAN_LIST_BUDGET = 1_500;
// UCP's MCP binding (docs/agentic-checkout.md): six tools listed only to keys with checkout:agent, which a key with
// every scope holds. Their schemas stay open objects (the protocol's own schemas are published by its profile), so
// they cost an all-scopes key little; measured 1,253 in both styles.
const PROTOCOL_TOOLS_BUDGET = 1_300;
const PROTOCOL = new Set(PROTOCOL_TOOLS.map((tool) => tool.name));
const LATER_TOOLS = new Set([
  'images.search_stock', 'products.set_options', 'shipping.list_rates', 'shipping.set_rate', 'shipping.delete_rate', 'orders.payment_link', 'orders.refund', 'variants.adjust_stock', 'variants.create', 'variants.delete', 'variants.update',
  ...['create', 'delete', 'list', 'list_deliveries', 'redeliver', 'rotate_secret', 'send_test', 'stats', 'update'].map((verb) => `webhooks.${verb}`),
]);

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(SCOPES);
});
afterAll(async () => {
  await t?.close();
});

type ListedTool = { name: string };

/** tools/list over HTTP as a 2025-era client of `version` sends it. */
async function listedTools(version: string, url = '/api/mcp'): Promise<ListedTool[]> {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`, 'mcp-protocol-version': version,
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().result as { tools: ListedTool[] }).tools;
}

/** Tokens of a `tools` array as JSON, printed with its size; per tool too when TOOL_COST=1 (the docs' cost table). */
function cost(label: string, tools: ListedTool[]): number {
  const json = JSON.stringify(tools);
  const tokens = countTokens(json);
  console.log(`tools/list, ${label}, ${tools.length} tools: ${tokens} tokens, ${json.length} characters`);
  if (process.env.TOOL_COST === '1') for (const tool of tools) console.log(`  ${tool.name}\t${countTokens(JSON.stringify(tool))}`);
  return tokens;
}

const REVISIONS = [
  { version: '2025-11-25', style: '$defs/$ref (2025-11-25, 2026-07-28)' },
  { version: '2025-06-18', style: 'inlined (2025-06-18, 2025-03-26)' },
];

describe('tools/list size for a key with every scope', () => {
  it.each(REVISIONS)(`is ${ORIGINAL_TOOLS_BUDGET} tokens at most for the 39 original tools, $style`, async ({ version, style }) => {
    const original = (await listedTools(version)).filter((tool) => !LATER_TOOLS.has(tool.name) && !PROTOCOL.has(tool.name));
    expect(original).toHaveLength(39);
    expect(cost(`${style}, original tools`, original)).toBeLessThanOrEqual(ORIGINAL_TOOLS_BUDGET);
  });

  it.each(REVISIONS)(`is ${FULL_LIST_BUDGET} tokens at most in full, $style`, async ({ version, style }) => {
    const listed = await listedTools(version);
    const tools = listed.filter((tool) => !PROTOCOL.has(tool.name));
    expect(tools).toHaveLength(TOOLS.length);
    expect(cost(style, tools)).toBeLessThanOrEqual(FULL_LIST_BUDGET);
    const protocol = listed.filter((tool) => PROTOCOL.has(tool.name));
    expect(protocol).toHaveLength(PROTOCOL_TOOLS.length);
    expect(cost(`${style}, UCP binding`, protocol)).toBeLessThanOrEqual(PROTOCOL_TOOLS_BUDGET);
    if (version === '2025-06-18') expect(JSON.stringify(tools)).not.toContain('$ref');
  });

  it(`is ${LEAN_LIST_BUDGET} tokens at most in the lean toolset (?toolset=discovery)`, async () => {
    const tools = await listedTools('2025-11-25', '/api/mcp?toolset=discovery');
    expect(tools.length).toBeLessThanOrEqual(3);
    expect(cost('lean toolset', tools)).toBeLessThanOrEqual(LEAN_LIST_BUDGET);
  });
});
