import { z } from 'zod';
import { slug } from '../../schemas/text.ts';
import { columns, copy, type SectionDefinition } from './fields.ts';

export const productGridSection = {
  key: 'product-grid',
  description:
    'Grid of live products: the ones named in productSlugs (in that order), else the newest of categorySlug (or of the whole catalog), optionally featured only.',
  props: z.strictObject({
    title: copy(200),
    productSlugs: z.array(slug()).max(48).default([]),
    categorySlug: slug().nullable().default(null),
    featuredOnly: z.boolean().default(false),
    limit: z.number().int().min(1).max(48).default(8),
    columns: columns(2, 6, 4),
  }),
} as const satisfies SectionDefinition<'product-grid'>;
