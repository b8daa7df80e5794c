import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { LimitState } from './rate-limit-headers.ts';

export type Limiter = (req: FastifyRequest) => Promise<LimitState>;
export type Limiters = { anon: Limiter; preauth: Limiter; key: Limiter };

/**
 * The three policies of docs/contract.md (rate limits), counted with @fastify/rate-limit's stores (in memory, or Redis when
 * REDIS_URL is set so instances share counters). The plugin's own per-route hook is not used: it knows one policy
 * per route and none of the structured headers, so the request guard calls these limiters in order.
 */
export async function createLimiters(app: FastifyInstance, config: Config, redis?: unknown): Promise<Limiters> {
  // skipOnError: a Redis outage lets requests through rather than failing every call (availability over limits).
  await app.register(rateLimit, { global: false, skipOnError: true, ...(redis ? { redis, nameSpace: 'agent-api-rl:' } : {}) });
  const { windowMs, anonMax, preauthMax, authMax } = config.rateLimit;
  const windowSeconds = Math.ceil(windowMs / 1000);

  const make = (policy: LimitState['policy'], max: number, keyOf: (req: FastifyRequest) => string): Limiter => {
    const check = app.createRateLimit({ max, timeWindow: windowMs, keyGenerator: (req) => `${policy}:${keyOf(req)}` });
    return async (req) => {
      const r = await check(req);
      if (r.isAllowed) return { policy, limit: max, remaining: max, resetSeconds: windowSeconds, windowSeconds, exceeded: false };
      return { policy, limit: max, remaining: r.remaining, resetSeconds: r.ttlInSeconds, windowSeconds, exceeded: r.isExceeded };
    };
  };

  return {
    anon: make('anon', anonMax, (req) => req.ip),
    preauth: make('preauth', preauthMax, (req) => req.ip),
    // An OAuth grant gets its own budget, apart from its operator key's other grants and direct use.
    key: make('key', authMax, (req) => (req.principal?.grantId ? `grant:${req.principal.grantId}` : (req.principal?.keyId ?? req.ip))),
  };
}
