import rateLimit from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { ToolRateLimit } from '../registry/define-tool.ts';
import { tightest, type LimitState } from './rate-limit-headers.ts';

/**
 * Counts `units` requests (default 1; a JSON-RPC batch counts one per message, units ≥ 1) against one policy and
 * returns its state after the highest count they reached. `read` returns the state without counting anything.
 */
export type Limiter = {
  (req: FastifyRequest, units?: number): Promise<LimitState>;
  read: (req: FastifyRequest) => Promise<LimitState>;
};
export type Limiters = {
  anon: Limiter;
  preauth: Limiter;
  key: Limiter;
  /** The per-key limiter of a tool that declares its own rate limit; its policy is the tool's name. */
  tool: (name: string, limit: ToolRateLimit) => Limiter;
  /** Per-IP limits of the built-in authorization server's endpoints (docs/oauth.md). */
  oauth: Readonly<{ register: Limiter; authorize: Limiter; token: Limiter }>;
  /** Per client address, for Stripe's webhook deliveries (docs/payments.md): a key's budget, since no key is sent. */
  stripeWebhook: Limiter;
  /** Per platform key on the checkout protocols' routes (docs/agentic-checkout.md, "Rate limits"), besides `key`. */
  checkout: Limiter;
};

/** Registering is once per host installation, so its window is an hour. */
const OAUTH_REGISTER_WINDOW_SECONDS = 3_600;

/**
 * The plugin's in-memory store, handing each count out as its own copy. The plugin's store keeps one counter
 * object per key, mutates it on every increment and hands that very object out; the plugin reads it after an await,
 * so requests counted in the same tick all saw the count of the last of them (a concurrent burst of 61 against a
 * limit of 60 refused all 61). Its `read` already answers with a fresh object, and the Redis store answers each
 * call with its own result. Counts plainly: this service sets none of the plugin's `continueExceeding`,
 * `exponentialBackoff` or `cache`, so the options the plugin passes are not read.
 */
class SnapshotLocalStore extends LocalStore {
  // The plugin constructs a custom store with its options object, which LocalStore would take for `continueExceeding`.
  constructor() {
    super();
  }

  override incr(...[key, callback, timeWindow, max]: Parameters<LocalStore['incr']>): void {
    super.incr(key, (error, counted) => callback(error, counted && { ...counted }), timeWindow, max);
  }

  /** Each `createRateLimit` policy gets its own store from this; the plugin's own `child` would make a plain one. */
  override child(): SnapshotLocalStore {
    return new SnapshotLocalStore();
  }
}

/**
 * The three per-caller policies of docs/contract.md (rate limits), the per-tool ones tools declare and the OAuth
 * endpoints' per-IP ones, counted with @fastify/rate-limit's stores (in memory, or Redis when REDIS_URL is set so
 * instances share counters). The
 * plugin's own per-route hook is not used: it knows one policy per route and none of the structured headers, so the
 * request guard calls these limiters in order, and a tool call counts its tool's limiter.
 */
export async function createLimiters(app: FastifyInstance, config: Config, redis?: unknown): Promise<Limiters> {
  // skipOnError: a Redis outage lets requests through rather than failing every call (availability over limits).
  await app.register(rateLimit, { global: false, skipOnError: true, ...(redis ? { redis, nameSpace: 'agent-api-rl:' } : { store: SnapshotLocalStore }) });
  const { windowMs, anonMax, preauthMax, authMax, checkoutMax } = config.rateLimit;
  const byKey = (req: FastifyRequest) => req.principal?.keyId ?? req.ip;
  const toolLimiters = new Map<string, Limiter>();

  const make = (policy: string, max: number, keyOf: (req: FastifyRequest) => string, windowSeconds = Math.ceil(windowMs / 1000)): Limiter => {
    const check = app.createRateLimit({ max, timeWindow: windowSeconds * 1000, keyGenerator: (req) => `${policy}:${keyOf(req)}` });
    const stateOf = (r: Awaited<ReturnType<typeof check>>): LimitState => {
      if (r.isAllowed) return { policy, limit: max, remaining: max, resetSeconds: windowSeconds, windowSeconds, exceeded: false };
      return { policy, limit: max, remaining: r.remaining, resetSeconds: r.ttlInSeconds, windowSeconds, exceeded: r.isExceeded };
    };
    // Units of one batch are counted at once (pipelined on Redis); the highest count they reached decides.
    const limiter = async (req: FastifyRequest, units = 1) => tightest((await Promise.all(Array.from({ length: units }, () => check(req)))).map(stateOf));
    const read = async (req: FastifyRequest) => stateOf(await check(req, { increment: false }));
    return Object.assign(limiter, { read });
  };

  return {
    anon: make('anon', anonMax, (req) => req.ip),
    preauth: make('preauth', preauthMax, (req) => req.ip),
    // An OAuth grant gets its own budget, apart from its operator key's other grants and direct use.
    key: make('key', authMax, (req) => (req.principal?.grantId ? `grant:${req.principal.grantId}` : (req.principal?.keyId ?? req.ip))),
    oauth: {
      register: make('oauth-register', config.oauthRateLimit.registerMax, (req) => req.ip, OAUTH_REGISTER_WINDOW_SECONDS),
      authorize: make('oauth-authorize', config.oauthRateLimit.authorizeMax, (req) => req.ip),
      token: make('oauth-token', config.oauthRateLimit.tokenMax, (req) => req.ip),
    },
    stripeWebhook: make('stripe-webhook', authMax, (req) => req.ip),
    checkout: make('checkout', checkoutMax, (req) => req.principal?.keyId ?? req.ip),
    tool: (name, { max, windowSeconds }) => {
      let limiter = toolLimiters.get(name);
      if (!limiter) toolLimiters.set(name, (limiter = make(name, max, byKey, windowSeconds)));
      return limiter;
    },
  };
}
