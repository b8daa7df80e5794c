import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyStore } from '../auth/key-store.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { baseUrlOf, originVary } from '../http/base-url.ts';
import { rateLimitHeaders } from '../http/rate-limit-headers.ts';
import type { Limiter, Limiters } from '../http/rate-limit.ts';
import { count } from '../http/request-guard.ts';
import { SCOPES } from '../registry/scopes.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { createJwtTokenVerifier, createLocalTokenVerifier, type AccessTokenVerifier } from './access-tokens.ts';
import { AuthorizationServer } from './authorization-server.ts';
import { registerConsentRoutes } from './consent-routes.ts';
import { pinOrigin } from './request-origin.ts';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  OAUTH_PATH,
  PROTECTED_RESOURCE_METADATA_PATH,
  PROTECTED_RESOURCES,
  issuerOf,
  protectedResourceFor,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
} from './resources.ts';

/** Discovery documents are public, cacheable and readable from any browser origin. */
const CORS_CACHEABLE = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Allow-Headers': 'Content-Type, MCP-Protocol-Version',
  'Cache-Control': 'public, max-age=3600',
};

export type OAuthDeps = { config: Config; db: Db; keys: KeyStore; fetch: typeof fetch; limiters: Limiters; secrets: SecretBox };

/**
 * OAuth for this service. With OAUTH_ISSUER set, only the resource-server half: RFC 9728 documents pointing at that
 * issuer and a JWT verifier for its tokens. Otherwise also the built-in authorization server under /oauth, its
 * RFC 8414 metadata and the operator's consent page. Returns the verifier the request guard uses for tokens that
 * are not API keys.
 */
export function registerOAuth(app: FastifyInstance, deps: OAuthDeps): AccessTokenVerifier {
  const { config } = deps;
  const external = config.oauth.issuer;
  const authorizationServerOf = (req: FastifyRequest) => external ?? issuerOf(baseUrlOf(req, config));
  const discoveryHeaders = { ...CORS_CACHEABLE, ...originVary(config) };

  for (const resource of PROTECTED_RESOURCES) {
    app.get(`${PROTECTED_RESOURCE_METADATA_PATH}${resource.path}`, async (req, reply) =>
      reply.headers(discoveryHeaders).send(protectedResourceMetadata(baseUrlOf(req, config), resource, authorizationServerOf(req))),
    );
  }
  addResourceMetadataToChallenges(app, config);

  if (external) return createJwtTokenVerifier(external, async (url) => (await fetch(url, { signal: AbortSignal.timeout(5_000) })).json());

  const server = new AuthorizationServer({ db: deps.db, config, log: app.log, fetch: deps.fetch, secrets: deps.secrets });
  registerConsentRoutes(app, { server, keys: deps.keys, db: deps.db, config, limiter: deps.limiters.oauth.authorize });

  // The library is a Koa app: it gets the raw request with its body unread, and the URL below /oauth that its
  // router matches (originalUrl keeps the full one, from which it derives the mount path for the URLs it builds).
  const passThrough = async (req: FastifyRequest, reply: FastifyReply, url: string) => {
    const baseUrl = baseUrlOf(req, config);
    const handle = await server.handlerFor(baseUrl);
    pinOrigin(req, baseUrl);
    reply.hijack();
    reply.raw.setHeader('X-Request-Id', req.id);
    // A hijacked reply skips the onSend hook that adds these everywhere else.
    for (const [name, value] of Object.entries({ ...originVary(config), ...rateLimitHeaders(req.rateLimits) })) reply.raw.setHeader(name, value);
    Object.assign(req.raw, { originalUrl: `${OAUTH_PATH}${url}` });
    req.raw.url = url;
    await handle(req.raw, reply.raw);
  };

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    scope.all(`${OAUTH_PATH}/*`, async (req, reply) => {
      const url = req.url.slice(OAUTH_PATH.length);
      const limiter = oauthLimiterFor(deps.limiters.oauth, url.split('?')[0]);
      // Refused past the limit before the library reads anything: a 429 problem with Retry-After.
      if (limiter) await count(req, limiter);
      return passThrough(req, reply, withDefaultScope(req.method, url));
    });
    // RFC 8414 metadata at the root and in the path-suffixed form for the issuer's /oauth path; it is the
    // library's discovery document (OpenID Connect discovery is a superset of RFC 8414).
    for (const path of [AUTHORIZATION_SERVER_METADATA_PATH, `${AUTHORIZATION_SERVER_METADATA_PATH}${OAUTH_PATH}`]) {
      scope.get(path, async (req, reply) => passThrough(req, reply, '/.well-known/openid-configuration'));
    }
  });

  return createLocalTokenVerifier(deps.db, server);
}

/** The per-IP limit a request to the authorization server counts against; discovery and its keys are not limited. */
function oauthLimiterFor(limiters: Limiters['oauth'], path: string): Limiter | undefined {
  if (path === '/register' || path.startsWith('/register/')) return limiters.register;
  if (path === '/authorize' || path.startsWith('/authorize/')) return limiters.authorize;
  if (path === '/token' || path === '/revoke') return limiters.token;
  return undefined;
}

/**
 * OAuth 2.1 lets a server give an authorization request without `scope` a default: here every scope, of which the
 * operator then approves what they choose (a token never carries more than the consent page granted).
 */
function withDefaultScope(method: string, url: string): string {
  if (method !== 'GET' || !url.startsWith('/authorize?')) return url;
  const query = new URLSearchParams(url.slice('/authorize?'.length));
  if (query.has('scope')) return url;
  query.set('scope', SCOPES.join(' '));
  return `/authorize?${query}`;
}

/**
 * Every 401 and 403 with a Bearer challenge on a protected URL also says where its RFC 9728 document is, so an
 * MCP host can find the authorization server from any refusal (a bad token, no token, a missing scope).
 */
function addResourceMetadataToChallenges(app: FastifyInstance, config: Config): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode !== 401 && reply.statusCode !== 403) return payload;
    const challenge = reply.getHeader('www-authenticate');
    if (typeof challenge !== 'string' || !challenge.startsWith('Bearer') || challenge.includes('resource_metadata=')) return payload;
    const resource = protectedResourceFor(req.url.split('?')[0]);
    if (resource) reply.header('WWW-Authenticate', `${challenge}, resource_metadata="${protectedResourceMetadataUrl(baseUrlOf(req, config), resource.path)}"`);
    return payload;
  });
}
