import type { FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { ToolRateLimit } from '../registry/define-tool.ts';
import type { LimitState } from './rate-limit-headers.ts';
import { memoryCounters, redisCounters, type CounterStore } from './rate-counter.ts';

/**
 * Counts `units` (default 1: one request; a JSON-RPC batch counts one per message) against one policy: all of them
 * or, when they do not fit in what is left, none (the state then says exceeded).
 */
export type Limiter = (req: FastifyRequest, units?: number) => Promise<LimitState>;
export type Limiters = {
  anon: Limiter;
  preauth: Limiter;
  key: Limiter;
  /** The per-key limiter of a tool that declares its own rate limit; its policy is the tool's name. */
  tool: (name: string, limit: ToolRateLimit) => Limiter;
};

/** Counters one instance keeps without Redis (as many as @fastify/rate-limit's in-memory store kept). */
const MEMORY_COUNTERS = 5000;

/**
 * The three per-caller policies of docs/contract.md (rate limits) plus the per-tool ones tools declare, on counters
 * in memory, or in Redis when REDIS_URL is set so instances share them. The request guard calls these limiters in
 * order, and a tool call counts its tool's limiter.
 */
export function createLimiters(config: Config, redis?: unknown): Limiters {
  const store: CounterStore = redis instanceof Redis ? redisCounters(redis, 'agent-api-rl:') : memoryCounters(MEMORY_COUNTERS);
  const { windowMs, anonMax, preauthMax, authMax } = config.rateLimit;
  const byKey = (req: FastifyRequest) => req.principal?.keyId ?? req.ip;
  const toolLimiters = new Map<string, Limiter>();

  const make = (policy: string, max: number, keyOf: (req: FastifyRequest) => string, windowSeconds = Math.ceil(windowMs / 1000)): Limiter => {
    return async (req, units = 1) => {
      // A Redis outage lets requests through rather than failing every call (availability over limits); the Redis
      // client logs the outage (src/db/redis.ts).
      const counted = await store.consume(`${policy}:${keyOf(req)}`, units, max, windowSeconds * 1000).catch(() => ({ current: 0, ttlMs: 0, consumed: true }));
      const resetSeconds = Math.ceil(counted.ttlMs / 1000);
      return { policy, limit: max, remaining: Math.max(0, max - counted.current), resetSeconds, windowSeconds, exceeded: !counted.consumed };
    };
  };

  return {
    anon: make('anon', anonMax, (req) => req.ip),
    preauth: make('preauth', preauthMax, (req) => req.ip),
    // An OAuth grant gets its own budget, apart from its operator key's other grants and direct use.
    key: make('key', authMax, (req) => (req.principal?.grantId ? `grant:${req.principal.grantId}` : (req.principal?.keyId ?? req.ip))),
    tool: (name, { max, windowSeconds }) => {
      let limiter = toolLimiters.get(name);
      if (!limiter) toolLimiters.set(name, (limiter = make(name, max, byKey, windowSeconds)));
      return limiter;
    },
  };
}
