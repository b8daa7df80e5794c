import { z } from 'zod';
import type { SectionDefinition } from './fields.ts';

export const spacerSection = {
  key: 'spacer',
  description: 'Vertical white space between sections.',
  props: z.strictObject({
    size: z.enum(['xs', 'sm', 'md', 'lg', 'xl']).default('md'),
  }),
} as const satisfies SectionDefinition<'spacer'>;
