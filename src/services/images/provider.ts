import type { ImageProviderName } from '../../config.ts';
import { FoundImage, type StockSearch } from './stock-image.ts';

/** A mapped photo before it is checked against the neutral shape. */
export type FoundImageInput = { [K in keyof FoundImage]: FoundImage[K] | undefined };

export type ProviderRequest = { url: string; headers: Record<string, string> };

/** One page of the provider's results, mapped but not yet checked, in the provider's order. */
export type ProviderPage = { totalResults: number | null; results: FoundImageInput[] };

/** One stock photo API: how to ask it, and how to read its documented answer. */
export type ImageProvider = {
  name: ImageProviderName;
  /** The setting holding the provider's key, named when the provider refuses it; null for a keyless provider. */
  keySetting: string | null;
  /** The most results one of its pages holds; a larger window is assembled from several pages. */
  maxPageSize: number;
  /** `page` and `perPage` are the provider's own (perPage ≤ maxPageSize). */
  searchRequest(search: StockSearch): ProviderRequest;
  /** null when the body does not have the documented shape. */
  parseSearch(body: unknown): ProviderPage | null;
  /** The request that tells the provider one of its photos is being used, where its terms ask for one. */
  useRequest?(image: FoundImage): ProviderRequest;
};

export function withQuery(base: string, path: string, params: Record<string, string | number | undefined>): string {
  const url = new URL(`${base}${path}`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, String(value));
  return url.href;
}

/**
 * The mapped photos that fit the neutral shape, in the provider's order, and how many did not. A photo whose image
 * URL products.attach_image would refuse (plain http, an IP address, credentials) or with a missing field is left
 * out rather than failing the whole page.
 */
export function keepValid(candidates: readonly FoundImageInput[]): { items: FoundImage[]; dropped: number } {
  const items = candidates.flatMap((candidate) => {
    const parsed = FoundImage.safeParse(candidate);
    return parsed.success ? [parsed.data] : [];
  });
  return { items, dropped: candidates.length - items.length };
}

/**
 * The provider pages that hold results [(page − 1) × perPage, page × perPage) of a search: the same page when the
 * provider's pages can be that large, else its largest pages from the one holding the window's first result to the
 * one holding its last, and where in their concatenation the window starts.
 */
export function providerWindow(page: number, perPage: number, maxPageSize: number): { pageSize: number; pages: number[]; skip: number } {
  if (perPage <= maxPageSize) return { pageSize: perPage, pages: [page], skip: 0 };
  const start = (page - 1) * perPage;
  const first = Math.floor(start / maxPageSize) + 1;
  const last = Math.floor((start + perPage - 1) / maxPageSize) + 1;
  return { pageSize: maxPageSize, pages: Array.from({ length: last - first + 1 }, (_, i) => first + i), skip: start - (first - 1) * maxPageSize };
}
