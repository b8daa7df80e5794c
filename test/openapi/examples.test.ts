// The published examples cannot rot: every tool has one (src/openapi/examples.json), and each request is sent to the
// running service on freshly seeded demo data, in the file's order, and must answer 200 with the recorded result.
// Volatile values are compared by kind only (docs/reference.md, "Examples"): ids (an `id` or `…Id` field, and
// `nextCursor`), ISO 8601 timestamps, signing secrets and the delivery queue's lag. UPDATE_EXAMPLES=1 records the answers (and the bound ids) into the file.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemo } from '../../src/cli/seed/index.ts';
import { TOOL_EXAMPLES, type ToolExample } from '../../src/openapi/examples.ts';
import { useResolver } from '../../src/events/endpoint-url.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { sendJson, startLocalServer, type LocalServer } from '../outbound/local-server.ts';

const FILE = new URL('../../src/openapi/examples.json', import.meta.url);
const RECORD = process.env.UPDATE_EXAMPLES === '1';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const VOLATILE_KEY = /^(id|[a-z][A-Za-z]*Id|nextCursor)$/;
/** Values that differ on every run and are no id: compared by kind (a webhook secret, a lag in seconds). */
const VOLATILE_VALUE: Readonly<Record<string, string>> = { secret: '<secret>', lagSeconds: '<seconds>' };

/**
 * The value with ids and timestamps replaced by their kind, so two runs on fresh data compare equal. An id also
 * inside another text (e.g. payment instructions naming the order) is replaced there too.
 */
function normalize(value: unknown): unknown {
  const ids = new Set<string>();
  const collect = (v: unknown, key = ''): void => {
    if (typeof v === 'string' && VOLATILE_KEY.test(key) && v.length > 0) ids.add(v);
    else if (v !== null && typeof v === 'object') for (const [k, child] of Object.entries(v)) collect(child, Array.isArray(v) ? '' : k);
  };
  collect(value);
  const replace = (v: unknown, key = ''): unknown => {
    if (Object.hasOwn(VOLATILE_VALUE, key)) return VOLATILE_VALUE[key];
    if (Array.isArray(v)) return v.map((child) => replace(child));
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, replace(child, k)]));
    if (typeof v !== 'string') return v;
    if (VOLATILE_KEY.test(key)) return '<id>';
    if (ISO.test(v)) return '<timestamp>';
    return [...ids].reduce((s, id) => s.replaceAll(id, '<id>'), v);
  };
  return replace(value);
}

const at = (value: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, k) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[k] : undefined), value);

let t: TestApp;
let key: string;
let imageProvider: LocalServer;
beforeAll(async () => {
  // images.search_stock asks a stock photo provider: a local one answering with Openverse's documented example.
  const openverse = JSON.parse(readFileSync(new URL('../tools/images-fixtures/openverse-search.json', import.meta.url), 'utf8')).response;
  imageProvider = await startLocalServer((_req, res) => sendJson(res, 200, openverse));
  t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: '1', OPENVERSE_API_URL: imageProvider.origin } });
  // The webhook example's host (hooks.example.com) resolves to a public documentation address; nothing is delivered
  // (this app runs no delivery worker).
  useResolver(t.config, async () => ['192.0.2.10']);
  await seedDemo(t.db);
  key = await t.key();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await imageProvider?.close();
});

it('every tool has an example, and every example names a tool', () => {
  expect(Object.keys(TOOL_EXAMPLES).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
});

it('every example request answers 200 with its recorded result (ids and timestamps by kind)', async () => {
  const results = new Map<string, unknown>();
  const recorded: Record<string, ToolExample> = {};
  for (const [name, example] of Object.entries(TOOL_EXAMPLES)) {
    const bound = Object.fromEntries(Object.entries(example.bind ?? {}).map(([field, ref]) => {
      const [tool, path] = ref.split(':');
      return [field, at(results.get(tool), path)];
    }));
    const request = { ...example.request, ...bound };
    const res = await t.call(name, request, key);
    expect(res.statusCode, `${name} ${JSON.stringify(request)} → ${res.body}`).toBe(200);
    const { result } = res.json() as { result: unknown };
    results.set(name, result);
    recorded[name] = { ...example, request, result };
    if (!RECORD) expect(normalize(result), `${name}: the answer differs from the recorded example`).toEqual(normalize(example.result));
  }
  if (RECORD) writeFileSync(FILE, `${JSON.stringify(recorded, null, 2)}\n`);
}, 120_000);
