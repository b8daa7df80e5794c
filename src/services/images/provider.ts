import type { ImageProviderName } from '../../config.ts';
import { FoundImage, type StockSearch, type StockSearchPage } from './stock-image.ts';

/** A mapped photo before it is checked against the neutral shape. */
export type FoundImageInput = { [K in keyof FoundImage]: FoundImage[K] | undefined };

export type ProviderRequest = { url: string; headers: Record<string, string> };

/** One stock photo API: how to ask it, and how to read its documented answer. */
export type ImageProvider = {
  name: ImageProviderName;
  /** The setting holding the provider's key, named when the provider refuses it; null for a keyless provider. */
  keySetting: string | null;
  searchRequest(search: StockSearch): ProviderRequest;
  /** null when the body does not have the documented shape. */
  parseSearch(body: unknown, search: StockSearch): StockSearchPage | null;
  /** The request that tells the provider one of its photos is being used, where its terms ask for one. */
  useRequest?(image: FoundImage): ProviderRequest;
};

export function withQuery(base: string, path: string, params: Record<string, string | number | undefined>): string {
  const url = new URL(`${base}${path}`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, String(value));
  return url.href;
}

/**
 * The mapped photos that fit the neutral shape, in the provider's order. A photo the provider describes with a
 * plain-http image URL or a missing field is left out rather than failing the whole page.
 */
export function keepValid(candidates: readonly FoundImageInput[]): FoundImage[] {
  return candidates.flatMap((candidate) => {
    const parsed = FoundImage.safeParse(candidate);
    return parsed.success ? [parsed.data] : [];
  });
}
