import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { CircuitBreaker } from '../../outbound/circuit-breaker.ts';
import { OutboundError, type SafeFetch, type SafeResponse } from '../../outbound/safe-fetch.ts';
import { openverseProvider } from './openverse.ts';
import { pexelsProvider } from './pexels.ts';
import { keepValid, providerWindow, type FoundImageInput, type ImageProvider, type ProviderPage } from './provider.ts';
import type { SearchCache } from './search-cache.ts';
import { FoundImage, StockSearchPage, type StockSearch } from './stock-image.ts';
import { unsplashProvider } from './unsplash.ts';

export const SEARCH_CACHE_TTL_MS = 10 * 60_000;
/** Search results stay attachable (with their licence and author) this long after the search. */
export const FOUND_IMAGE_TTL_MS = 24 * 60 * 60_000;
export const BREAKER = { threshold: 5, openMs: 30_000 } as const;
/** When a provider says "too many requests" without saying for how long. */
const DEFAULT_RETRY_AFTER_S = 60;

export type ImageSearch = {
  readonly provider: ImageProvider;
  search(search: StockSearch, log: FastifyBaseLogger): Promise<StockSearchPage>;
  /** A photo an earlier search returned (remembered for a day), or null. */
  find(sourceId: string): Promise<FoundImage | null>;
  /** Tells the provider the photo is used, where its terms ask for that; a failure is logged, never thrown. */
  reportUse(image: FoundImage, log: FastifyBaseLogger): Promise<void>;
};

export function providerFor(images: Config['images']): ImageProvider {
  switch (images.provider) {
    case 'openverse':
      return openverseProvider(images.openverse);
    case 'unsplash':
      return unsplashProvider(images.unsplash);
    case 'pexels':
      return pexelsProvider(images.pexels);
  }
}

/**
 * The provider behind images.search_stock, called through the safe client with a cache in front (a retrying agent
 * does not spend the shop's quota) and a circuit breaker (a failing provider is not waited on again and again).
 * Every failure becomes a problem that names the provider but never its URL, key or body, in answers and logs alike.
 */
export function createImageSearch(deps: { provider: ImageProvider; fetch: SafeFetch; cache: SearchCache; breaker?: CircuitBreaker }): ImageSearch {
  const { provider, fetch, cache } = deps;
  const breaker = deps.breaker ?? new CircuitBreaker(BREAKER);

  /** One page of the provider's own, through the breaker; every failure is a problem (and a breaker failure). */
  async function fetchPage(search: StockSearch, log: FastifyBaseLogger): Promise<ProviderPage> {
    const waitMs = breaker.msUntilRetry();
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw new AppError('service_unavailable', `The image provider ${provider.name} failed ${BREAKER.threshold} times in a row and is paused; retry in ${seconds} s.`, { 'Retry-After': String(seconds) });
    }

    const request = provider.searchRequest(search);
    const fail = (failure: string, error: AppError): never => {
      breaker.recordFailure();
      log.warn({ provider: provider.name, failure }, 'image provider call failed');
      throw error;
    };
    let response: SafeResponse;
    try {
      response = await fetch(request.url, { headers: request.headers, trusted: true });
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      return fail(err.kind, outboundProblem(provider, err));
    }

    if (response.status === 429) {
      // The provider is healthy, only busy: not a breaker failure, and the caller learns when to come back.
      log.warn({ provider: provider.name, failure: 'status 429' }, 'image provider rate limit reached');
      throw new AppError('service_unavailable', `The image provider ${provider.name} is rate limiting the shop's requests; retry later.`, {
        'Retry-After': String(retryAfterSeconds(response.headers.get('retry-after'))),
      });
    }
    if (response.status === 401 || response.status === 403) {
      return fail(`status ${response.status}`, keyRefused(provider));
    }
    if (response.status < 200 || response.status > 299) {
      return fail(`status ${response.status}`, new AppError('upstream_error', `The image provider ${provider.name} answered with HTTP ${response.status}.`));
    }
    let page: ProviderPage | null = null;
    try {
      page = provider.parseSearch(response.json());
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
    }
    if (!page) return fail('unreadable body', new AppError('upstream_error', `The image provider ${provider.name} answered with a response the service cannot read.`));
    breaker.recordSuccess();
    return page;
  }

  return {
    provider,
    async search(search, log) {
      const query = search.query.trim().replace(/\s+/g, ' ');
      const key = JSON.stringify([provider.name, query.toLowerCase(), search.orientation ?? null, search.page, search.perPage]);
      const cached = readCached(StockSearchPage, await cache.get(key));
      if (cached) return cached;

      // `page` of `perPage` is the same window of results on every provider, whatever the size of its own pages.
      const window = providerWindow(search.page, search.perPage, provider.maxPageSize);
      const results: FoundImageInput[] = [];
      let totalResults: number | null = null;
      for (const page of window.pages) {
        const answer = await fetchPage({ ...search, query, page, perPage: window.pageSize }, log);
        totalResults = answer.totalResults;
        results.push(...answer.results);
        // A short page is the provider's last: the pages after it are empty.
        if (answer.results.length < window.pageSize) break;
      }
      const { items, dropped } = keepValid(results.slice(window.skip, window.skip + search.perPage));
      const found: StockSearchPage = { provider: provider.name, page: search.page, totalResults, dropped, items };
      await cache.set(key, JSON.stringify(found), SEARCH_CACHE_TTL_MS);
      await Promise.all(items.map((item) => cache.set(foundImageKey(item.sourceId), JSON.stringify(item), FOUND_IMAGE_TTL_MS)));
      return found;
    },

    async find(sourceId) {
      return readCached(FoundImage, await cache.get(foundImageKey(sourceId)));
    },

    async reportUse(image, log) {
      if (!provider.useRequest || !image.sourceId.startsWith(`${provider.name}:`)) return;
      const request = provider.useRequest(image);
      const failure = await fetch(request.url, { headers: request.headers }).then(
        (res) => (res.status >= 200 && res.status <= 299 ? null : `status ${res.status}`),
        (err: unknown) => (err instanceof OutboundError ? err.kind : 'error'),
      );
      if (failure) log.warn({ provider: provider.name, failure }, 'image provider use report failed');
    },
  };
}

const foundImageKey = (sourceId: string) => `found-image:${sourceId}`;

/** A cache entry written by an older version, or damaged, is a miss. */
function readCached<T>(schema: z.ZodType<T>, value: string | null): T | null {
  if (value === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function keyRefused(provider: ImageProvider): AppError {
  const setting = provider.keySetting ?? 'the provider settings';
  return new AppError(
    'upstream_error',
    `The image provider ${provider.name} refused the service's credentials.`,
    {},
    `The service operator must check the ${setting} setting (a missing, revoked or mistyped key); retrying will not help until then.`,
  );
}

function outboundProblem(provider: ImageProvider, err: OutboundError): AppError {
  switch (err.kind) {
    case 'timeout':
      return new AppError('upstream_timeout', `The image provider ${provider.name} did not answer in time.`);
    case 'too_large':
      return new AppError('upstream_error', `The image provider ${provider.name} answered with a response larger than the service accepts.`);
    case 'network':
      return new AppError('upstream_error', `The image provider ${provider.name} could not be reached.`);
    default:
      return new AppError('upstream_error', `The image provider ${provider.name} could not be called (${err.kind}).`);
  }
}

/** A Retry-After in delta-seconds, bounded to a sane range; anything else (an HTTP date, garbage) gets the default. */
function retryAfterSeconds(header: string | null): number {
  const seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : DEFAULT_RETRY_AFTER_S;
  return Math.min(Math.max(seconds, 1), 3600);
}
