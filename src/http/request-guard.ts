import type { FastifyRequest } from 'fastify';
import type { Authenticate } from '../auth/bearer.ts';
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
      if (opts.requireCredentials) throw new AppError('unauthorized', SIGN_IN_REQUIRED, { 'WWW-Authenticate': 'Bearer realm="agent-api"' });
      return;
    }
    await count(req, limiters.preauth);
    const match = authHeaders === 1 ? BEARER.exec(req.headers.authorization ?? '') : null;
    const principal = match ? await authenticate(match[1], req) : null;
    if (!principal) {
      throw new AppError('unauthorized', INVALID_KEY, { 'WWW-Authenticate': 'Bearer realm="agent-api", error="invalid_token"' });
    }
    req.principal = principal;
    await count(req, limiters.key);
  };
}

/**
 * Counts the request (or `units` requests: the further messages of a batch) with one limiter, records the state for
 * the RateLimit headers, and refuses it past the limit; units that do not all fit are not taken.
 */
export async function count(req: FastifyRequest, limiter: Limiter, units = 1): Promise<void> {
  const state = await limiter(req, units);
  req.rateLimits.push(state);
  if (state.exceeded) {
    const { 'Retry-After': retryAfter } = rateLimitHeaders([state]);
    const exceeded = `Rate limit "${state.policy}" of ${state.limit} requests per ${state.windowSeconds} s exceeded`;
    const detail = units === 1 ? `${exceeded}.` : `${exceeded} by this batch: its messages count one request each, ${state.remaining} are left; nothing in it ran.`;
    throw new AppError('rate_limited', detail, { 'Retry-After': retryAfter });
  }
}

/**
 * The further messages of a multi-message body (the guard counted the request once on arrival), each counted by the
 * limiters that counted the request: all of them fit, or the whole body is refused before anything in it runs.
 * Anonymous callers may not batch.
 */
export async function countBatch(req: FastifyRequest, limiters: Limiters, messages: number): Promise<void> {
  if (!req.principal) {
    throw new AppError('unauthorized', 'A JSON-RPC batch needs credentials: send each message in its own request, or an API key or access token.', {
      'WWW-Authenticate': 'Bearer realm="agent-api"',
    });
  }
  if (messages <= 1) return;
  await count(req, limiters.preauth, messages - 1);
  await count(req, limiters.key, messages - 1);
}

/** Node keeps only the first of some duplicated headers (Authorization) and joins others, so count raw ones. */
export function countHeader(req: FastifyRequest, lowerCaseName: string): number {
  const raw = req.raw.rawHeaders;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === lowerCaseName.length && raw[i].toLowerCase() === lowerCaseName) n++;
  return n;
}
