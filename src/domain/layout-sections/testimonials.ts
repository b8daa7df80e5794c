import { z } from 'zod';
import { text } from '../../schemas/text.ts';
import { copy, optionalImage, type SectionDefinition } from './fields.ts';

export const testimonialsSection = {
  key: 'testimonials',
  description: 'Customer quotes with author, role and an optional avatar.',
  props: z.strictObject({
    title: copy(200),
    items: z
      .array(
        z.strictObject({
          quote: text({ min: 1, max: 1000 }),
          author: text({ min: 1, max: 120 }),
          role: copy(120),
          avatarUrl: optionalImage(),
        }),
      )
      .max(24)
      .default([]),
  }),
} as const satisfies SectionDefinition<'testimonials'>;
