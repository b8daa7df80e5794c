import { z } from 'zod';
import { columns, copy, imageUrl, type SectionDefinition } from './fields.ts';

export const gallerySection = {
  key: 'gallery',
  description: 'Grid of images, each with alt text.',
  props: z.strictObject({
    title: copy(200),
    images: z.array(z.strictObject({ src: imageUrl(), alt: copy(200) })).max(48).default([]),
    columns: columns(2, 6, 3),
  }),
} as const satisfies SectionDefinition<'gallery'>;
