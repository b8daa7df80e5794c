import { z } from 'zod';
import { IMAGE_PROVIDERS } from '../../config.ts';
import { checkImageUrl } from '../../domain/image-url.ts';

export const ORIENTATIONS = ['landscape', 'portrait', 'square'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

export type StockSearch = { query: string; orientation?: Orientation; page: number; perPage: number };

/** An image URL products.attach_image accepts: its own check (public https host, no IP, no credentials). */
const attachable = z.url({ protocol: /^https$/ }).refine((url) => checkImageUrl(url).ok, 'must be an image URL products.attach_image accepts');
const web = z.url({ protocol: /^https?$/ });

/** One photo found at a provider, in the provider-neutral shape agents see. */
export const StockImage = z.object({
  sourceId: z.string().describe('"<provider>:<id>"; pass it to products.attach_image with url.'),
  url: attachable.describe('The large-size image, to attach or embed.'),
  thumbnailUrl: attachable,
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  alt: z.string().nullable(),
  authorName: z.string().nullable(),
  authorUrl: web.nullable(),
  license: z.string().describe('The licence name, e.g. "Unsplash License" or "CC BY 2.0".'),
  licenseUrl: web.nullable(),
  attribution: z.string().describe('A ready-to-print credit line.'),
  pageUrl: web.describe("The photo's page at the provider."),
});
export type StockImage = z.infer<typeof StockImage>;

/**
 * What the service keeps about a photo beyond what agents see: Unsplash's download_location, which must be
 * requested when the photo is used (through the safe client, which insists on https outside tests).
 */
export const FoundImage = StockImage.extend({ downloadLocation: web.nullable() });
export type FoundImage = z.infer<typeof FoundImage>;

export const StockSearchPage = z.object({
  provider: z.enum(IMAGE_PROVIDERS),
  page: z.number().int(),
  totalResults: z.number().int().nullable(),
  dropped: z.number().int().min(0),
  items: z.array(FoundImage),
});
export type StockSearchPage = z.infer<typeof StockSearchPage>;
