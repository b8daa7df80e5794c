import { z } from 'zod';
import { IMAGE_PROVIDERS } from '../config.ts';
import { defineTool } from '../registry/define-tool.ts';
import { text } from '../schemas/text.ts';
import { imageSearchFor } from '../services/images/index.ts';
import { ORIENTATIONS, StockImage } from '../services/images/stock-image.ts';

export const imageTools = [
  defineTool({
    name: 'images.search_stock',
    title: 'Search stock photos',
    description: 'Finds licensed stock photos, each with its licence and a credit line to print; attach one with products.attach_image.',
    scope: 'marketing:write',
    kind: 'read',
    openWorld: true,
    // Every uncached search spends the shop's quota at the provider (Unsplash's demo mode allows 50 an hour).
    rateLimit: { max: 30, windowSeconds: 60 },
    errors: ['upstream_error', 'upstream_timeout'],
    input: z.strictObject({
      query: text({ min: 1, max: 200 }).regex(/\S/, 'must not be blank'),
      orientation: z.enum(ORIENTATIONS).optional(),
      page: z.number().int().min(1).max(1000).default(1),
      perPage: z.number().int().min(1).max(30).default(10),
    }),
    output: z.object({
      provider: z.enum(IMAGE_PROVIDERS),
      page: z.number().int(),
      totalResults: z.number().int().nullable(),
      dropped: z.number().int(),
      items: z.array(StockImage),
    }),
    handler: (input, ctx) => imageSearchFor(ctx.config).search(input, ctx.log),
  }),
];
