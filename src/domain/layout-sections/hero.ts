import { z } from 'zod';
import { copy, link, optionalImage, type SectionDefinition } from './fields.ts';

export const heroSection = {
  key: 'hero',
  description: 'Full-width banner: headline, subtitle, background image and one call-to-action button.',
  props: z.strictObject({
    title: copy(200),
    subtitle: copy(500),
    imageUrl: optionalImage(),
    ctaLabel: copy(80),
    ctaHref: link(),
    align: z.enum(['left', 'center', 'right']).default('center'),
  }),
} as const satisfies SectionDefinition<'hero'>;
