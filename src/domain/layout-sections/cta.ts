import { z } from 'zod';
import { copy, link, type SectionDefinition } from './fields.ts';

export const ctaSection = {
  key: 'cta',
  description: 'Call to action: a short pitch and one button.',
  props: z.strictObject({
    title: copy(200),
    text: copy(1000),
    buttonLabel: copy(80),
    buttonHref: link(),
    variant: z.enum(['primary', 'secondary']).default('primary'),
  }),
} as const satisfies SectionDefinition<'cta'>;
