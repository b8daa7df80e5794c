import { describe, expect, it } from 'vitest';
import { z } from 'zod';
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
