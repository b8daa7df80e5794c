import { answeredAs } from '../../schemas/domain-issue.ts';
import { z } from 'zod';
import { text } from '../../schemas/text.ts';
import type { SectionDefinition } from './fields.ts';
import { SECTIONS } from './index.ts';

/** The seven entrance effects a section may ask for (docs/content.md, "Layouts"). */
export const SECTION_EFFECTS = ['fade-up', 'fade', 'zoom-in', 'slide-left', 'slide-right', 'parallax', 'none'] as const;
const Effect = z.enum(SECTION_EFFECTS);

const MAX_SECTIONS = 100;

const sectionFields = {
  id: text({ min: 1, max: 100 }).describe('Unique within the layout; renderers use it as the element id and list key.'),
  enabled: z.boolean().default(true).describe('false keeps the section in the layout but does not render it.'),
  effect: Effect.optional().describe('Entrance animation.'),
};

/**
 * One strict variant per whitelisted key, so the published JSON schema tells an agent exactly which props each
 * section takes. Missing props become the defaults, so the stored layout is complete and renders the same even if
 * a default changes later.
 */
const variant = <K extends string>(def: SectionDefinition<K>) =>
  z
    .strictObject({ ...sectionFields, key: z.literal(def.key), props: def.props.prefault({}) })
    .describe(`${def.key}: ${def.description}`);

const keyList = SECTIONS.map((s) => s.key).join(', ');

const Section = z.discriminatedUnion(
  'key',
  SECTIONS.map((def) => variant(def)) as unknown as [ReturnType<typeof variant>, ...ReturnType<typeof variant>[]],
  { error: (issue) => (issue.code === 'invalid_union' ? `must be one of the section keys: ${keyList}` : undefined) },
);

/** The layout a write accepts: every section is checked against the whitelist and its key's props schema. */
export const Layout = z
  .strictObject({ sections: z.array(Section).min(1).max(MAX_SECTIONS) })
  .superRefine(({ sections }, ctx) => {
    const seen = new Set<string>();
    sections.forEach((s, i) => {
      if (seen.has(s.id)) {
        ctx.addIssue({ code: 'custom', path: ['sections', i, 'id'], message: `duplicate section id "${s.id}"`, params: answeredAs('invalid_layout') });
      }
      seen.add(s.id);
    });
  })
  .describe('Visual Builder section tree. Sections render in order; each key has its own props (all optional). Section ids are unique (422 invalid_layout).');
export type LayoutValue = z.infer<typeof Layout>;

/**
 * The layout as read back. Deliberately looser than `Layout`: a page saved before a section was retired from the
 * whitelist must still be readable (and fixable), not turn every read into a 500.
 */
export const StoredLayout = z.object({
  sections: z.array(
    z.object({
      id: z.string(),
      key: z.string(),
      enabled: z.boolean(),
      effect: Effect.optional(),
      props: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});
export type StoredLayoutValue = z.infer<typeof StoredLayout>;

/** A Json column read back as a layout; the reading tool's output schema (StoredLayout) checks the shape. */
export const asStoredLayout = (column: unknown) => column as StoredLayoutValue | null;
