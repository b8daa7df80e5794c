import { z } from 'zod';
import type { Config } from '../../config.ts';
import { withQuery, type ImageProvider } from './provider.ts';
import type { FoundImage, Orientation } from './stock-image.ts';

const ORIENTATION: Record<Orientation, string> = { landscape: 'landscape', portrait: 'portrait', square: 'squarish' };

// The fields of GET /search/photos that the service reads (unsplash.com/documentation#search-photos).
const SearchResponse = z.object({
  total: z.number().int(),
  results: z.array(
    z.object({
      id: z.string(),
      width: z.number().int().nullish(),
      height: z.number().int().nullish(),
      description: z.string().nullish(),
      alt_description: z.string().nullish(),
      urls: z.object({ regular: z.string(), small: z.string().nullish(), thumb: z.string().nullish() }),
      links: z.object({ html: z.string(), download_location: z.string().nullish() }),
      user: z.object({ name: z.string(), links: z.object({ html: z.string().nullish() }).nullish() }),
    }),
  ),
});

export const UNSPLASH_LICENSE = { name: 'Unsplash License', url: 'https://unsplash.com/license' } as const;

export function unsplashHeaders(accessKey: string | undefined): Record<string, string> {
  return { authorization: `Client-ID ${accessKey ?? ''}`, 'accept-version': 'v1', accept: 'application/json' };
}

export function unsplashProvider(config: Config['images']['unsplash']): ImageProvider {
  return {
    name: 'unsplash',
    keySetting: 'UNSPLASH_ACCESS_KEY',
    // per_page is at most 30 (unsplash.com/documentation#search-photos).
    maxPageSize: 30,
    searchRequest: ({ query, orientation, page, perPage }) => ({
      url: withQuery(config.baseUrl, '/search/photos', { query, page, per_page: perPage, orientation: orientation && ORIENTATION[orientation] }),
      headers: unsplashHeaders(config.accessKey),
    }),
    parseSearch(body) {
      const parsed = SearchResponse.safeParse(body);
      if (!parsed.success) return null;
      const results = parsed.data.results.map((r) => ({
        sourceId: `unsplash:${r.id}`,
        url: r.urls.regular,
        thumbnailUrl: r.urls.small ?? r.urls.thumb ?? r.urls.regular,
        width: r.width ?? null,
        height: r.height ?? null,
        alt: r.alt_description ?? r.description ?? null,
        authorName: r.user.name,
        authorUrl: r.user.links?.html ?? null,
        license: UNSPLASH_LICENSE.name,
        licenseUrl: UNSPLASH_LICENSE.url,
        // The credit line Unsplash's API guidelines ask for.
        attribution: `Photo by ${r.user.name} on Unsplash`,
        pageUrl: r.links.html,
        downloadLocation: r.links.download_location ?? null,
      }));
      return { totalResults: parsed.data.total, results };
    },
    // Unsplash's API guidelines: when a photo is used, request its download_location (GET /photos/:id/download).
    // The photo's own download_location carries Unsplash's tracking parameters; it gets the key only when it is on
    // the configured API origin, otherwise the documented endpoint under the configured base URL is used.
    useRequest(image: FoundImage) {
      const documented = `${config.baseUrl}/photos/${encodeURIComponent(image.sourceId.replace(/^unsplash:/, ''))}/download`;
      const onApiOrigin = image.downloadLocation !== null && new URL(image.downloadLocation).origin === new URL(config.baseUrl).origin;
      return { url: onApiOrigin && image.downloadLocation ? image.downloadLocation : documented, headers: unsplashHeaders(config.accessKey) };
    },
  };
}
