import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';

/** A counter after a consumption: its count, how long its window still runs, and whether the units were taken. */
export type Counted = { current: number; ttlMs: number; consumed: boolean };

/**
 * Fixed-window counters that take several units at once or none: a JSON-RPC batch of N calls is N units, and a
 * batch that does not fit is refused without using any of what is left. The window starts with the first unit.
 */
export type CounterStore = {
  consume(key: string, units: number, max: number, windowMs: number): Promise<Counted>;
};

/**
 * In-process counters (one instance). Beyond `maxEntries` the counters whose windows started first are dropped,
 * as @fastify/rate-limit's LRU store did; they are the nearest to ending anyway.
 */
export function memoryCounters(maxEntries: number, now: () => number = Date.now): CounterStore {
  const windows = new Map<string, { count: number; startMs: number }>();
  return {
    async consume(key, units, max, windowMs) {
      const at = now();
      let window = windows.get(key);
      if (!window || window.startMs + windowMs <= at) {
        window = { count: 0, startMs: at };
        windows.delete(key); // a new window goes last, so the oldest stay first
        windows.set(key, window);
        for (const oldest of windows.keys()) {
          if (windows.size <= maxEntries) break;
          windows.delete(oldest);
        }
      }
      const consumed = window.count + units <= max;
      if (consumed) window.count += units;
      return { current: window.count, ttlMs: window.startMs + windowMs - at, consumed };
    },
  };
}

/** Check and increment in one script, so concurrent requests on every instance never take more than `max`. */
const CONSUME = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local units, max, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if current + units > max then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then ttl = window end
  return {current, ttl, 0}
end
current = redis.call('INCRBY', KEYS[1], units)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], window)
  ttl = window
end
return {current, ttl, 1}
`;
const CONSUME_SHA = createHash('sha1').update(CONSUME).digest('hex');
const Reply = z.tuple([z.number(), z.number(), z.number()]);

/** Counters every instance shares. A script Redis does not hold yet (a restart, a new server) is sent once in full. */
export function redisCounters(redis: Redis, prefix: string): CounterStore {
  return {
    async consume(key, units, max, windowMs) {
      const args = [1, `${prefix}${key}`, units, max, windowMs] as const;
      const reply = await redis.evalsha(CONSUME_SHA, ...args).catch((err: unknown) => {
        if (err instanceof Error && err.message.startsWith('NOSCRIPT')) return redis.eval(CONSUME, ...args);
        throw err;
      });
      const [current, ttlMs, consumed] = Reply.parse(reply);
      return { current, ttlMs, consumed: consumed === 1 };
    },
  };
}
