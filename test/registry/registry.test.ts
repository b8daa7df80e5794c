import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PROBLEMS } from '../../src/errors.ts';
import { defineTool, REVERSIBLE_SENTENCE } from '../../src/registry/define-tool.ts';
import { revertTargets } from '../../src/registry/reversible.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { COMMON_PROBLEMS } from '../../src/registry/tool-problems.ts';
import { TOOLS } from '../../src/tools/index.ts';

const byName = new Map(TOOLS.map((t) => [t.name, t]));

// Invariants every tool must satisfy; a new tool that breaks one fails here before it reaches an agent.
describe('tool registry', () => {
  it('has unique names of the form domain.action', () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z]+\.[a-z_]+$/);
  });

  it.each(TOOLS.map((t) => [t.name, t] as const))('%s declares scope, description, kind and the MCP annotations derived from it', (_n, tool) => {
    expect(SCOPES).toContain(tool.scope);
    expect(tool.title.length).toBeGreaterThan(3);
    expect(tool.description.length).toBeGreaterThan(20);
    expect(tool.write).toBe(tool.kind === 'write');
    expect(tool.annotations.readOnlyHint).toBe(tool.kind === 'read');
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      expect(typeof tool.annotations[hint]).toBe('boolean');
    }
    // Only tools that call an external provider (stock photos, Stripe) reach beyond the shop's own data.
    expect(tool.annotations.openWorldHint).toBe(['images.search_stock', 'orders.payment_link', 'orders.refund'].includes(tool.name));
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
    if (tool.requiresConfirm) expect(tool.annotations.destructiveHint).toBe(true);
  });

  it.each(TOOLS.map((t) => [t.name, t] as const))('%s declares only its own problem codes, each once', (_n, tool) => {
    for (const code of tool.errors) {
      expect(Object.keys(PROBLEMS), code).toContain(code);
      expect(COMMON_PROBLEMS, `${code} is common to every tool; do not declare it`).not.toContain(code);
    }
    expect(new Set(tool.errors).size).toBe(tool.errors.length);
  });

  it('anonymous tools are reads of public data', () => {
    const anonymous = TOOLS.filter((t) => t.anonymous);
    expect(anonymous.length).toBeGreaterThan(0);
    for (const t of anonymous) {
      expect(t.write, t.name).toBe(false);
      expect(['catalog:read', 'categories:read', 'pages:read'], t.name).toContain(t.scope);
    }
  });

  it('every write declares what its audit entries are: reversible entities or append-only types', () => {
    for (const t of TOOLS) {
      if (t.write) expect(t.auditedTypes.size, t.name).toBeGreaterThan(0);
      else expect(t.auditedTypes.size, t.name).toBe(0);
    }
  });

  it('every reversible entity names existing write tools, and the description says so', () => {
    const targets = revertTargets(TOOLS);
    expect(targets.size).toBeGreaterThan(0);
    for (const [entityType, { entity, tools }] of targets) {
      expect(entity.entityType).toBe(entityType);
      expect(tools.size, entityType).toBeGreaterThan(0);
      for (const name of tools) {
        expect(byName.get(name)?.write, `${entityType}: ${name}`).toBe(true);
        expect(byName.get(name)?.description.endsWith(REVERSIBLE_SENTENCE), name).toBe(true);
      }
    }
    for (const t of TOOLS) if (t.reversible.length === 0) expect(t.description, t.name).not.toContain(REVERSIBLE_SENTENCE);
  });

  it('audit.revert can undo exactly the entries of the tools that declare their entity reversible', () => {
    const revert = byName.get('audit.revert');
    expect(revert?.requiresConfirm).toBe(true);
    // Its own entries are append-only and cover every reversible entity type.
    expect([...(revert?.auditedTypes ?? [])].sort()).toEqual([...revertTargets(TOOLS).keys()].sort());
  });
});

describe('defineTool deprecation (Sunset at least 90 days after Deprecation)', () => {
  const base = {
    name: 'x.old',
    title: 'Old tool',
    description: 'A deprecated tool used only by this test.',
    scope: 'catalog:read' as const,
    kind: 'read' as const,
    errors: [],
    input: z.strictObject({}),
    output: z.object({}),
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
