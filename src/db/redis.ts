import { Redis } from 'ioredis';

/**
 * The Redis client for shared rate-limit counters. Commands fail at once while Redis is unreachable (no offline
 * queue), and the limiters then let requests through: availability over limits. The outage is logged once when it
 * begins and once when Redis is back, not per request or per reconnect attempt.
 */
export function connectRedis(url: string, log: { warn: (msg: string) => void; info: (msg: string) => void }): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn(`Redis unreachable (${err.message}): rate limits are not enforced until it is back`);
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info('Redis reachable again: rate limits are enforced again');
  });
  return redis;
}
