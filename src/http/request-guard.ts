import type { FastifyRequest } from 'fastify';
import type { Authenticate } from '../auth/bearer.ts';
import { parseKey } from '../auth/key-format.ts';
import { AppError } from '../errors.ts';
import type { Principal } from '../registry/define-tool.ts';
import { rateLimitHeaders, type LimitState } from './rate-limit-headers.ts';
import type { Limiter, Limiters } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    rateLimits: LimitState[];
  }
}

const INVALID_KEY = 'The API key or access token is malformed, unknown, revoked or expired.';
const SIGN_IN_REQUIRED = 'This URL serves signed-in clients only: send an API key or an OAuth access token (see its WWW-Authenticate).';
/** Where OAuth clients sign in: they are told to (again), not to create a key (docs/errors.md). */
const SIGN_IN_ADVICE = 'Sign in with OAuth (an MCP host runs the flow the WWW-Authenticate header points to), or send an API key (keys create).';
const SIGN_IN_AGAIN = 'The access token is expired, revoked or not ours: sign in again (use the refresh token, or run the authorization flow again).';
const BEARER = /^Bearer ([!-~]+)$/;

/**
 * onRequest guard for tool and MCP routes, before the body is read:
 * no Authorization → anonymous limiter (or a 401 where credentials are required); with one → pre-auth limiter
 * (no database work yet), then the key or token lookup, then the per-key (per-grant for tokens) limiter. The
 * principal (or null) is left on the request for the scope check.
 */
export function createRequestGuard(limiters: Limiters, authenticate: Authenticate, opts: { requireCredentials?: boolean } = {}) {
  return async function guard(req: FastifyRequest): Promise<void> {
    req.principal = null;
    req.rateLimits = [];
    const authHeaders = countHeader(req, 'authorization');
    if (authHeaders === 0) {
      await count(req, limiters.anon);
      if (opts.requireCredentials) throw new AppError('unauthorized', SIGN_IN_REQUIRED, { 'WWW-Authenticate': 'Bearer realm="agent-api"' }, SIGN_IN_ADVICE);
      return;
    }
    await count(req, limiters.preauth);
    const match = authHeaders === 1 ? BEARER.exec(req.headers.authorization ?? '') : null;
    const principal = match ? await authenticate(match[1], req) : null;
    if (!principal) {
      // Not in the API key format: an access token, whose holder signs in again rather than creating a key.
      const accessToken = match !== null && parseKey(match[1]) === null;
      throw new AppError('unauthorized', INVALID_KEY, { 'WWW-Authenticate': 'Bearer realm="agent-api", error="invalid_token"' }, accessToken ? SIGN_IN_AGAIN : undefined);
    }
    req.principal = principal;
    await count(req, limiters.key);
  };
}

/**
 * onRequest hook of the checkout protocols' routes (/acp, /ucp), after the guard: a platform's requests count against
 * its own budget there (RATE_LIMIT_CHECKOUT_MAX per window and key), besides the key's budget for the whole service.
 * A refusal is the rate_limited problem with Retry-After, which each protocol answers in its own error shape.
 */
export function checkoutRateLimit(limiters: Limiters) {
  return async function limitPlatform(req: FastifyRequest): Promise<void> {
    if (req.principal) await count(req, limiters.checkout);
  };
}

/** Counts the request with one limiter, records the state for the RateLimit headers, and refuses it past the limit. */
export async function count(req: FastifyRequest, limiter: Limiter): Promise<void> {
  const state = await limiter(req);
  req.rateLimits.push(state);
  if (state.exceeded) throw rateLimited(state, '.');
}

/** `units` requests to count on one limiter: a batch's further messages, or its calls of a tool with its own limit. */
export type Charge = { limiter: Limiter; units: number };

/**
 * The further messages of a multi-message body (the guard counted the request once on arrival), each counted by the
 * limiters that counted the request, plus `calls` (the body's calls of tools with their own limits), before anything
 * in it runs. Every limiter is read first: a body that does not fit in what one of them has left is refused whole
 * and counts nothing more. Otherwise its units are counted, and a body that requests counted at the same time
 * pushed past a limit is refused too, its units spent like any refused request's: under a race a batch may be
 * refused after counting, never run past a limit. Anonymous callers may not batch.
 */
export async function countBatch(req: FastifyRequest, limiters: Limiters, messages: number, calls: readonly Charge[]): Promise<void> {
  if (!req.principal) {
    throw new AppError('unauthorized', 'A JSON-RPC batch needs credentials: send each message in its own request, or an API key or access token.', {
      'WWW-Authenticate': 'Bearer realm="agent-api"',
    });
  }
  const further = messages - 1;
  const charges = [...(further > 0 ? [limiters.preauth, limiters.key].map((limiter) => ({ limiter, units: further })) : []), ...calls];
  if (charges.length === 0) return;
  const left = await Promise.all(charges.map(({ limiter }) => limiter.read(req)));
  const short = left.findIndex((state, i) => state.remaining < charges[i].units);
  if (short !== -1) {
    const refused = { ...left[short], exceeded: true };
    req.rateLimits.push(...left.with(short, refused));
    throw rateLimited(refused, ` by this batch: its messages count one request each, ${refused.remaining} are left; nothing in it ran.`);
  }
  const counted = await Promise.all(charges.map(({ limiter, units }) => limiter(req, units)));
  req.rateLimits.push(...counted);
  const over = counted.find((state) => state.exceeded);
  if (over) {
    throw rateLimited(over, ' by this batch and requests counted at the same time: its messages were counted, one request each; nothing in it ran.');
  }
}

function rateLimited(state: LimitState, how: string): AppError {
  const { 'Retry-After': retryAfter } = rateLimitHeaders([state]);
  return new AppError('rate_limited', `Rate limit "${state.policy}" of ${state.limit} requests per ${state.windowSeconds} s exceeded${how}`, {
    'Retry-After': retryAfter,
  });
}

/** Node keeps only the first of some duplicated headers (Authorization) and joins others, so count raw ones. */
export function countHeader(req: FastifyRequest, lowerCaseName: string): number {
  const raw = req.raw.rawHeaders;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === lowerCaseName.length && raw[i].toLowerCase() === lowerCaseName) n++;
  return n;
}
