import { Redis } from 'ioredis';
import type { Config } from '../../config.ts';
import { serviceSafeFetch } from '../../outbound/service-client.ts';
import { createImageSearch, providerFor, type ImageSearch } from './image-search.ts';
import { memoryCache, redisCache } from './search-cache.ts';

/** Entries kept in memory per process when there is no Redis: pages of at most 30 photos, and the photos themselves. */
const MEMORY_CACHE_ENTRIES = 5000;

// One image search per app: its cache and circuit breaker live as long as the app does, and tool handlers reach it
// through the app's frozen config, which they already receive.
const searches = new WeakMap<Config, ImageSearch>();

/**
 * Sets up the app's image search; with a Redis client (REDIS_URL) the search cache is shared by every instance.
 * Called once when the app is built.
 */
export function setUpImageSearch(config: Config, deps: { redis?: unknown; onCacheError?: (err: unknown) => void } = {}): ImageSearch {
  const cache = deps.redis instanceof Redis ? redisCache(deps.redis, deps.onCacheError ?? (() => {})) : memoryCache(MEMORY_CACHE_ENTRIES);
  const search = createImageSearch({ provider: providerFor(config.images), fetch: serviceSafeFetch(config), cache });
  searches.set(config, search);
  return search;
}

export function imageSearchFor(config: Config): ImageSearch {
  return searches.get(config) ?? setUpImageSearch(config);
}
