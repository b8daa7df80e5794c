// The compact schemas tools/list publishes accept exactly what the full schema accepts: checked with Ajv on the
// layout of pages.set_layout (a union of closed sections sharing id, enabled and effect, the case the compaction
// rewrites most), for the 2020-12 form with `$defs` and `unevaluatedProperties` and for the inlined form older
// revisions get, which a draft-07 validator must read the same way.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { compactSchema } from '../../src/mcp/compact-schema.ts';
import { TOOLS } from '../../src/tools/index.ts';

const setLayout = TOOLS.find((t) => t.name === 'pages.set_layout');
if (!setLayout) throw new Error('pages.set_layout is not registered');
const full = z.toJSONSchema(setLayout.input, { io: 'input' });

const hero = { id: 'top', key: 'hero', props: { title: 'Hello' } };
const VALID = [hero, { id: 'b', key: 'spacer', enabled: false, effect: 'fade', props: { size: 'lg' } }];
/** Each refused by the full schema. */
const INSTANCES: { name: string; sections: unknown[] }[] = [
  { name: 'a field no section has', sections: [{ ...hero, colour: 'red' }] },
  { name: 'no id', sections: [{ key: 'hero', props: {} }] },
  { name: 'no key', sections: [{ id: 'a', props: {} }] },
  { name: 'an unknown key', sections: [{ id: 'a', key: 'carousel' }] },
  { name: 'another section’s props', sections: [{ id: 'a', key: 'hero', props: { size: 'lg' } }] },
  { name: 'enabled not a boolean', sections: [{ ...hero, enabled: 'yes' }] },
  { name: 'an unknown effect', sections: [{ ...hero, effect: 'spin' }] },
  { name: 'an empty id', sections: [{ ...hero, id: '' }] },
];

const validators = {
  full: new Ajv2020({ strict: false }).compile(full),
  shared: new Ajv2020({ strict: false }).compile(compactSchema(full, 'input', 'shared')),
  'inline, 2020-12': new Ajv2020({ strict: false }).compile(compactSchema(full, 'input', 'inline')),
  'inline, draft-07': new Ajv({ strict: false }).compile(compactSchema(full, 'input', 'inline')),
};

describe('compact input schemas accept what the full schema accepts (pages.set_layout)', () => {
  const input = (sections: unknown[]) => ({ slug: 'home', layout: { sections }, confirm: true });

  it('valid sections', () => {
    for (const [style, validate] of Object.entries(validators)) expect(validate(input(VALID)), style).toBe(true);
  });

  it.each(INSTANCES)('refuses $name', ({ sections }) => {
    for (const [style, validate] of Object.entries(validators)) expect(validate(input(sections)), style).toBe(false);
  });

  it('shares the sections’ common fields in both styles', () => {
    expect(JSON.stringify(compactSchema(full, 'input', 'shared'))).toContain('unevaluatedProperties');
    const inline = JSON.stringify(compactSchema(full, 'input', 'inline'));
    expect(inline).not.toContain('unevaluatedProperties');
    expect(inline.split('Entrance animation').length - 1).toBe(1);
  });
});
