import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Strings by key with a lifetime; a failing store answers "not cached" rather than failing the search. */
export type SearchCache = {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
};

/** In-process, least recently used entries dropped beyond `maxEntries`. */
export function memoryCache(maxEntries: number, now: () => number = Date.now): SearchCache {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  return {
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return null;
      entries.delete(key);
      if (entry.expiresAt <= now()) return null;
      entries.set(key, entry); // most recently used goes last
      return entry.value;
    },
    async set(key, value, ttlMs) {
      entries.delete(key);
      entries.set(key, { value, expiresAt: now() + ttlMs });
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
  };
}

/** Shared by every instance of the service; keys are hashed so a long query cannot make a long key. */
export function redisCache(redis: Redis, onError: (err: unknown) => void): SearchCache {
  const keyOf = (key: string) => `agent-api-images:${createHash('sha256').update(key).digest('base64url')}`;
  return {
    get: (key) => redis.get(keyOf(key)).catch((err: unknown) => (onError(err), null)),
    set: async (key, value, ttlMs) => {
      await redis.set(keyOf(key), value, 'PX', ttlMs).catch(onError);
    },
  };
}
