import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { SECTION_KEYS, SECTIONS } from '../../src/domain/layout-sections/index.ts';
import { Layout, StoredLayout } from '../../src/domain/layout-sections/layout.ts';

const DIR = fileURLToPath(new URL('../../src/domain/layout-sections/', import.meta.url));
const NOT_SECTIONS = new Set(['index.ts', 'layout.ts', 'fields.ts']);

describe('layout section registry', () => {
  it('has the whitelist of docs/content.md', () => {
    expect([...SECTION_KEYS].sort()).toEqual(
      ['category-grid', 'cta', 'faq', 'features', 'gallery', 'hero', 'image', 'product-grid', 'rich-text', 'spacer', 'testimonials'],
    );
  });

  it('registers exactly one section per module file, named after its key', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !NOT_SECTIONS.has(f));
    expect(files.map((f) => f.replace(/\.ts$/, '')).sort()).toEqual([...SECTION_KEYS].sort());
    expect(new Set(SECTION_KEYS).size).toBe(SECTION_KEYS.length);
  });

  it.each(SECTIONS.map((s) => [s.key, s] as const))('%s: every prop has a default', (_key, section) => {
    const defaults = section.props.parse({});
    expect(Object.keys(defaults).sort()).toEqual(Object.keys(section.props.shape).sort());
  });

  it.each(SECTIONS.map((s) => [s.key, s] as const))('%s: refuses unknown props', (_key, section) => {
    const result = section.props.safeParse({ notAProp: 1 });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['notAProp'] });
  });

  it.each(SECTIONS.map((s) => [s.key, s] as const))('%s: has a description for agents', (_key, section) => {
    expect(section.description.length).toBeGreaterThan(10);
  });
});

describe('Layout', () => {
  it('fills enabled and props defaults, and keeps effect only when given', () => {
    expect(Layout.parse({ sections: [{ id: 'a', key: 'spacer' }, { id: 'b', key: 'spacer', effect: 'fade', enabled: false, props: { size: 'xs' } }] })).toEqual({
      sections: [
        { id: 'a', key: 'spacer', enabled: true, props: { size: 'md' } },
        { id: 'b', key: 'spacer', enabled: false, effect: 'fade', props: { size: 'xs' } },
      ],
    });
  });

  it('is published as JSON Schema with one variant per section key', () => {
    type Variant = { properties: { key: { const: string } } };
    const sections = z.toJSONSchema(Layout, { io: 'input' }).properties?.sections as { items: { oneOf: Variant[] } };
    expect(sections.items.oneOf.map((v) => v.properties.key.const)).toEqual([...SECTION_KEYS]);
  });

  it('reads back every layout it accepts', () => {
    const stored = Layout.parse({ sections: SECTIONS.map((s, i) => ({ id: `s${i}`, key: s.key })) });
    expect(StoredLayout.parse(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
  });

  it('still reads a stored layout whose section key has left the whitelist', () => {
    const legacy = { sections: [{ id: 'old', key: 'marquee', enabled: true, props: { speed: 3 } }] };
    expect(StoredLayout.parse(legacy)).toEqual(legacy);
    expect(Layout.safeParse(legacy).success).toBe(false);
  });
});
