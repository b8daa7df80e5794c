import type { FastifyBaseLogger } from 'fastify';
import { IMAGE_PROVIDERS, type Config } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { imageSearchFor } from './index.ts';
import type { FoundImage } from './stock-image.ts';

const STOCK_SOURCE = new RegExp(`^(${IMAGE_PROVIDERS.join('|')}):`);

/**
 * The images.search_stock result a `sourceId` names, when it names one ("<provider>:<id>"); null for any other
 * identifier, which is recorded as given. The attached URL must be that result's `url`, so the licence and author
 * recorded with it are the ones that belong to the picture.
 */
export async function stockImageFor(config: Config, sourceId: string, imageUrl: string): Promise<FoundImage | null> {
  if (!STOCK_SOURCE.test(sourceId)) return null;
  const found = await imageSearchFor(config).find(sourceId);
  if (!found) {
    throw new AppError('not_found', `No images.search_stock result with sourceId "${sourceId}" is known (results are remembered for 24 hours); search again and attach a current result.`);
  }
  if (normalized(found.url) !== normalized(imageUrl)) {
    throw new AppError('invalid_request', `imageUrl: must be the url of the search result ${sourceId}: ${found.url}`);
  }
  return found;
}

/** Tells the photo's provider it is used, where the provider's terms ask for that (Unsplash). */
export function reportStockImageUse(config: Config, image: FoundImage, log: FastifyBaseLogger): Promise<void> {
  return imageSearchFor(config).reportUse(image, log);
}

function normalized(url: string): string {
  return URL.canParse(url) ? new URL(url).href : url;
}

/** What the audit entry of an attached stock photo records about its origin and licence. */
export function stockImageMeta(image: FoundImage) {
  return {
    provider: image.sourceId.slice(0, image.sourceId.indexOf(':')),
    license: image.license,
    licenseUrl: image.licenseUrl,
    authorName: image.authorName,
    authorUrl: image.authorUrl,
    attribution: image.attribution,
    pageUrl: image.pageUrl,
  };
}
