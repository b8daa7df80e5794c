import { z } from 'zod';
import type { Config } from '../../config.ts';
import { withQuery, type ImageProvider } from './provider.ts';
import type { Orientation } from './stock-image.ts';


const ASPECT_RATIO: Record<Orientation, string> = { landscape: 'wide', portrait: 'tall', square: 'square' };

// The fields of GET /v1/images/ that the service reads (api.openverse.org/v1/#tag/images/operation/images_search).
const SearchResponse = z.object({
  result_count: z.number().int(),
  results: z.array(
    z.object({
      id: z.string(),
      title: z.string().nullish(),
      url: z.string().nullish(),
      thumbnail: z.string().nullish(),
      foreign_landing_url: z.string().nullish(),
      creator: z.string().nullish(),
      creator_url: z.string().nullish(),
      license: z.string(),
      license_version: z.string().nullish(),
      license_url: z.string().nullish(),
      attribution: z.string().nullish(),
      width: z.number().int().nullish(),
      height: z.number().int().nullish(),
    }),
  ),
});

/** "cc0" 1.0 → "CC0 1.0", "by-sa" 2.0 → "CC BY-SA 2.0", "pdm" → "Public Domain Mark 1.0". */
export function licenseName(code: string, version: string | null | undefined): string {
  const name = code === 'pdm' ? 'Public Domain Mark' : code === 'cc0' ? 'CC0' : `CC ${code.toUpperCase()}`;
  return version ? `${name} ${version}` : name;
}

export function openverseProvider(config: Config['images']['openverse']): ImageProvider {
  return {
    name: 'openverse',
    keySetting: null,
    // Openverse answers anonymous requests with at most 20 results per page (more is a 401).
    maxPageSize: 20,
    searchRequest: ({ query, orientation, page, perPage }) => ({
      url: withQuery(config.baseUrl, '/v1/images/', {
        q: query,
        page,
        page_size: perPage,
        // Only works whose licence allows commercial use: a shop is commercial.
        license_type: 'commercial',
        aspect_ratio: orientation && ASPECT_RATIO[orientation],
      }),
      headers: { accept: 'application/json' },
    }),
    parseSearch(body) {
      const parsed = SearchResponse.safeParse(body);
      if (!parsed.success) return null;
      const results = parsed.data.results.map((r) => {
        const license = licenseName(r.license, r.license_version);
        const title = r.title?.trim() || null;
        return {
          sourceId: `openverse:${r.id}`,
          url: r.url ?? undefined,
          thumbnailUrl: r.thumbnail ?? r.url ?? undefined,
          width: r.width ?? null,
          height: r.height ?? null,
          alt: title,
          authorName: r.creator ?? null,
          authorUrl: r.creator_url ?? null,
          license,
          licenseUrl: r.license_url ?? null,
          attribution: r.attribution ?? `${title ? `"${title}"` : 'This work'}${r.creator ? ` by ${r.creator}` : ''} is licensed under ${license}.`,
          pageUrl: r.foreign_landing_url ?? `https://openverse.org/image/${r.id}`,
          downloadLocation: null,
        };
      });
      return { totalResults: parsed.data.result_count, results };
    },
  };
}
