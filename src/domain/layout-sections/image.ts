import { z } from 'zod';
import { copy, link, optionalImage, type SectionDefinition } from './fields.ts';

export const imageSection = {
  key: 'image',
  description: 'One image with alt text and an optional caption and link.',
  props: z.strictObject({
    src: optionalImage(),
    alt: copy(200),
    caption: copy(300),
    href: link(),
    width: z.enum(['content', 'wide', 'full']).default('content'),
  }),
} as const satisfies SectionDefinition<'image'>;
