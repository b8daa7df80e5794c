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
    description:
      'Finds licensed stock photos for a product, page or service at the configured provider (Openverse, Unsplash or Pexels). Each result carries its licence and a ready-to-print attribution; attach one with products.attach_image (sourceId and url). Identical searches within 10 minutes are answered from a cache.',
    scope: 'marketing:write',
    kind: 'read',
    openWorld: true,
    // Every uncached search spends the shop's quota at the provider (Unsplash's demo mode allows 50 an hour).
    rateLimit: { max: 30, windowSeconds: 60 },
    errors: ['upstream_error', 'upstream_timeout'],
    input: z.strictObject({
      query: text({ min: 1, max: 200 }).regex(/\S/, 'must not be blank').describe('What the photo should show, e.g. "ceramic coffee mug on a wooden table".'),
      orientation: z.enum(ORIENTATIONS).optional(),
      page: z.number().int().min(1).max(1000).default(1),
      perPage: z.number().int().min(1).max(30).default(10).describe('Openverse returns at most 20 per page.'),
    }),
    output: z.object({
      provider: z.enum(IMAGE_PROVIDERS),
      page: z.number().int(),
      totalResults: z.number().int().nullable(),
      items: z.array(StockImage),
    }),
    handler: (input, ctx) => imageSearchFor(ctx.config).search(input, ctx.log),
  }),
];
