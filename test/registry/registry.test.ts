import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/registry/define-tool.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';

// Invariants every tool must satisfy; a new tool that breaks one fails here before it reaches an agent.
describe('tool registry', () => {
  it('has unique names of the form domain.action', () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z]+\.[a-z_]+$/);
  });

  it.each(TOOLS.map((t) => [t.name, t] as const))('%s declares scope, description and all MCP annotations', (_n, tool) => {
    expect(SCOPES).toContain(tool.scope);
    expect(tool.title.length).toBeGreaterThan(3);
    expect(tool.description.length).toBeGreaterThan(20);
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      expect(typeof tool.annotations[hint]).toBe('boolean');
    }
    expect(tool.annotations.openWorldHint).toBe(false);
    if (tool.annotations.readOnlyHint) expect(tool.annotations.destructiveHint).toBe(false);
  });

  it.each(TOOLS.map((t) => [t.name, t] as const))('%s publishes a strict object input with dryRun/confirm where they apply', (_n, tool) => {
    const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    expect(schema.type).toBe('object');
    expect(schema.anyOf).toBeUndefined();
    expect(schema.additionalProperties).toBe(false);
    const props = Object.keys((schema.properties ?? {}) as object);
    expect(props.includes('dryRun')).toBe(tool.write);
    expect(props.includes('confirm')).toBe(tool.requiresConfirm);
    if (tool.requiresConfirm) expect(tool.annotations.destructiveHint || tool.name === 'audit.revert').toBe(true);
  });

  it('only catalog and site reads are anonymous', () => {
    expect(TOOLS.filter((t) => t.anonymous).map((t) => t.name).sort()).toEqual(
      ['categories.list', 'products.get', 'products.search', 'site.get_page', 'site.list_pages'].filter((n) => TOOLS.some((t) => t.name === n)).sort(),
    );
    for (const t of TOOLS.filter((x) => x.anonymous)) expect(t.write).toBe(false);
  });
});

describe('defineTool deprecation (spec §9.6)', () => {
  const base = {
    name: 'x.old',
    title: 'Old tool',
    description: 'A deprecated tool used only by this test.',
    scope: 'catalog:read' as const,
    input: z.strictObject({}),
    output: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: async () => ({}),
  };
  const since = new Date('2026-01-01T00:00:00Z');
  const daysLater = (d: number) => new Date(since.getTime() + d * 86_400_000);

  it('refuses a Sunset announced less than 90 days ahead', () => {
    expect(() => defineTool({ ...base, deprecated: { since, sunset: daysLater(89), link: 'https://x.test/d' } })).toThrow(/at least 90 days/);
    expect(() => defineTool({ ...base, deprecated: { since, sunset: daysLater(-1), link: 'https://x.test/d' } })).toThrow(/at least 90 days/);
  });

  it('accepts a Sunset 90 or more days ahead', () => {
    expect(defineTool({ ...base, deprecated: { since, sunset: daysLater(90), link: 'https://x.test/d' } }).deprecated?.sunset).toEqual(daysLater(90));
  });
});
