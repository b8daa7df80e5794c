import { z } from 'zod';
import { slug } from '../../schemas/text.ts';
import { columns, copy, type SectionDefinition } from './fields.ts';

export const categoryGridSection = {
  key: 'category-grid',
  description: 'Grid of category tiles: the categories named in categorySlugs (in that order), or all of them when empty.',
  props: z.strictObject({
    title: copy(200),
    categorySlugs: z.array(slug()).max(48).default([]),
    columns: columns(2, 6, 3),
  }),
} as const satisfies SectionDefinition<'category-grid'>;
