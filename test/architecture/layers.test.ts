// The layers point one way (docs/architecture.md): tools declare tools over services; services hold data access
// and workflows; domain holds pure rules; schemas hold reusable field schemas. This test reads every import under
// src/ and fails on one that goes the wrong way, naming the file and the import.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

type Import = { from: string; to: string; typeOnly: boolean };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Static and dynamic relative imports and re-exports, as paths relative to src/ (e.g. "tools/cart.ts"). */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  const pattern = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(pattern)) {
    const spec = m[3] ?? m[4]!;
    found.push({
      from: path.relative(SRC, file).split(path.sep).join('/'),
      to: path.relative(SRC, path.resolve(path.dirname(file), spec)).split(path.sep).join('/'),
      typeOnly: Boolean(m[2]),
    });
  }
  return found;
}

const layerOf = (p: string) => p.split('/')[0]!;
const IMPORTS = sourceFiles(SRC).flatMap(importsOf);

/** What each layer must not import (by top-level folder of src/, or an exact file). */
const RULES: { layer: string; forbidden: (to: string) => boolean; why: string }[] = [
  {
    layer: 'domain',
    forbidden: (to) => ['tools', 'services', 'http', 'mcp', 'db', 'generated', 'registry', 'openapi', 'auth', 'cli'].includes(layerOf(to)),
    why: 'domain/ holds pure rules: no I/O, no framework, no database types (field schemas are fine)',
  },
  {
    layer: 'schemas',
    forbidden: (to) => ['tools', 'services', 'http', 'mcp', 'db', 'generated', 'registry', 'openapi', 'cli'].includes(layerOf(to)),
    why: 'schemas/ are field schemas any layer may use; they depend on nothing above them',
  },
  {
    layer: 'services',
    forbidden: (to) => ['tools', 'http', 'mcp', 'openapi', 'cli'].includes(layerOf(to)) || to.startsWith('registry/invoke'),
    why: 'services/ are called by tools, the CLI and the bench; they know nothing about transports or tool declarations',
  },
  {
    layer: 'events',
    forbidden: (to) => ['tools', 'http', 'mcp', 'openapi', 'cli'].includes(layerOf(to)) || to.startsWith('registry/'),
    why: 'events/ (catalogue, outbox, delivery) sit beside services/: the write path and the tools call them, never the reverse',
  },
  {
    layer: 'email',
    forbidden: (to) => ['tools', 'http', 'mcp', 'openapi', 'cli', 'registry', 'storefront'].includes(layerOf(to)),
    why: 'email/ (outbox, catalogue, worker) sits beside services/ like events/: the write path calls it, never the reverse',
  },
  {
    layer: 'secrets',
    forbidden: (to) => ['tools', 'services', 'events', 'oauth', 'http', 'mcp', 'registry', 'openapi', 'cli', 'auth'].includes(layerOf(to)),
    why: 'secrets/ seals what the services, events, OAuth and MCP code store; it knows none of them',
  },
];

/** Only these may import tool declarations: the registry list itself and its consumers. */
const TOOL_CONSUMERS = ['app.ts', 'openapi/write.ts', 'server.ts'];

describe('import directions under src/', () => {
  it('finds the imports it checks', () => {
    expect(IMPORTS.length).toBeGreaterThan(100);
    expect(IMPORTS.some((i) => i.from === 'tools/index.ts' && i.to === 'tools/cart.ts')).toBe(true);
  });

  for (const rule of RULES) {
    it(`${rule.layer}/ imports nothing it must not (${rule.why})`, () => {
      const wrong = IMPORTS.filter((i) => layerOf(i.from) === rule.layer && rule.forbidden(i.to)).map((i) => `${i.from} → ${i.to}`);
      expect(wrong).toEqual([]);
    });
  }

  it('a tool file imports no other tool file (shared code lives in services/ or schemas/)', () => {
    const wrong = IMPORTS.filter((i) => layerOf(i.from) === 'tools' && i.from !== 'tools/index.ts' && layerOf(i.to) === 'tools');
    expect(wrong.map((i) => `${i.from} → ${i.to}`)).toEqual([]);
  });

  it('a tool file exports only its tools (schemas and helpers other code needs belong in schemas/ or services/)', () => {
    const exported = sourceFiles(path.join(SRC, 'tools'))
      .filter((f) => !f.endsWith(`${path.sep}index.ts`))
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^export\s+(?:async\s+)?(?:const|function|type|class|let)\s+(\w+)/gm)].map((m) => `${path.basename(f)}: ${m[1]}`));
    expect(exported.length).toBeGreaterThan(0);
    expect(exported.filter((e) => !/: \w+Tools$/.test(e))).toEqual([]);
  });

  it('only the registry list imports tool files, and only its consumers import the list', () => {
    const wrong = IMPORTS.filter((i) => layerOf(i.to) === 'tools' && layerOf(i.from) !== 'tools')
      .filter((i) => !(i.to === 'tools/index.ts' && TOOL_CONSUMERS.includes(i.from)));
    expect(wrong.map((i) => `${i.from} → ${i.to}`)).toEqual([]);
  });

  it('the registry imports no tools, services code or transports (types of services are allowed)', () => {
    const wrong = IMPORTS.filter((i) => layerOf(i.from) === 'registry')
      .filter((i) => ['tools', 'http', 'mcp', 'openapi', 'cli'].includes(layerOf(i.to)) || (layerOf(i.to) === 'services' && !i.typeOnly));
    expect(wrong.map((i) => `${i.from} → ${i.to}`)).toEqual([]);
  });
});
