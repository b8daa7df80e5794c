import { z } from 'zod';
import { text } from '../../schemas/text.ts';
import { columns, copy, type SectionDefinition } from './fields.ts';

export const featuresSection = {
  key: 'features',
  description: 'Grid of selling points, each a title, a line of text and an optional icon name.',
  props: z.strictObject({
    title: copy(200),
    items: z
      .array(z.strictObject({ title: text({ min: 1, max: 120 }), text: copy(500), icon: copy(40) }))
      .max(24)
      .default([]),
    columns: columns(2, 4, 3),
  }),
} as const satisfies SectionDefinition<'features'>;
