import { z } from 'zod';
import { copy, type SectionDefinition } from './fields.ts';

export const richTextSection = {
  key: 'rich-text',
  description: "Text in the page body's format: '## ' headers and paragraphs separated by blank lines.",
  props: z.strictObject({
    body: copy(50_000),
    width: z.enum(['narrow', 'normal', 'wide']).default('normal'),
  }),
} as const satisfies SectionDefinition<'rich-text'>;
