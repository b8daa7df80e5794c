import { z } from 'zod';
import { text } from '../../schemas/text.ts';
import { copy, type SectionDefinition } from './fields.ts';

export const faqSection = {
  key: 'faq',
  description: 'Questions and answers, rendered as an accordion.',
  props: z.strictObject({
    title: copy(200),
    items: z.array(z.strictObject({ q: text({ min: 1, max: 300 }), a: text({ min: 1, max: 5000 }) })).max(50).default([]),
  }),
} as const satisfies SectionDefinition<'faq'>;
