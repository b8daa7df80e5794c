import { z } from 'zod';
import type { Config } from '../../config.ts';
import { withQuery, type ImageProvider } from './provider.ts';

// The fields of GET /v1/search that the service reads (pexels.com/api/documentation/#photos-search).
const SearchResponse = z.object({
  total_results: z.number().int(),
  photos: z.array(
    z.object({
      id: z.number().int(),
      width: z.number().int().nullish(),
      height: z.number().int().nullish(),
      url: z.string(),
      photographer: z.string(),
      photographer_url: z.string().nullish(),
      alt: z.string().nullish(),
      src: z.object({ large2x: z.string(), large: z.string().nullish(), medium: z.string().nullish() }),
    }),
  ),
});

export function pexelsProvider(config: Config['images']['pexels']): ImageProvider {
  return {
    name: 'pexels',
    keySetting: 'PEXELS_API_KEY',
    // per_page is at most 80 (pexels.com/api/documentation/#photos-search).
    maxPageSize: 80,
    searchRequest: ({ query, orientation, page, perPage }) => ({
      // Pexels' orientation values are the tool's own: landscape, portrait, square.
      url: withQuery(config.baseUrl, '/v1/search', { query, page, per_page: perPage, orientation }),
      headers: { authorization: config.apiKey ?? '', accept: 'application/json' },
    }),
    parseSearch(body) {
      const parsed = SearchResponse.safeParse(body);
      if (!parsed.success) return null;
      const results = parsed.data.photos.map((p) => ({
        sourceId: `pexels:${p.id}`,
        url: p.src.large2x,
        thumbnailUrl: p.src.medium ?? p.src.large ?? p.src.large2x,
        width: p.width ?? null,
        height: p.height ?? null,
        alt: p.alt?.trim() || null,
        authorName: p.photographer,
        authorUrl: p.photographer_url ?? null,
        license: 'Pexels License',
        licenseUrl: 'https://www.pexels.com/license/',
        // The credit line Pexels' API guidelines ask for.
        attribution: `Photo by ${p.photographer} on Pexels`,
        pageUrl: p.url,
        downloadLocation: null,
      }));
      return { totalResults: parsed.data.total_results, results };
    },
  };
}
