import Fastify, { type FastifyInstance } from 'fastify';
import { bearerAuthenticator } from './auth/bearer.ts';
import { KeyStore } from './auth/key-store.ts';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import { AppError } from './errors.ts';
import { registerHealthRoutes, type Lifecycle } from './http/health.ts';
import { sendProblem } from './http/problem.ts';
import { rateLimitHeaders } from './http/rate-limit-headers.ts';
import { createLimiters } from './http/rate-limit.ts';
import { createRequestGuard } from './http/request-guard.ts';
import { newRequestId } from './http/request-id.ts';
import { answerClientError } from './http/client-error.ts';
import { registerToolRoutes } from './http/tool-routes.ts';
import { registerStripeWebhook } from './http/stripe-webhook.ts';
import { registerDiscoveryRoutes } from './http/discovery-routes.ts';
import { PATHS } from './http/paths.ts';
import { registerReference } from './http/reference/reference-routes.ts';
import { fastifyTrustProxy } from './http/trust-proxy.ts';
import { logTraceparent } from './http/trace-context.ts';
import { registerMcp } from './mcp/mcp-route.ts';
import { useResolver } from './events/endpoint-url.ts';
import { ALLOW_PRIVATE_WARNING } from './outbound/service-client.ts';
import { setUpImageSearch } from './services/images/index.ts';
import type { Resolver } from './outbound/safe-fetch.ts';
import type { Metrics } from './metrics/metrics.ts';
import { registerStorefront } from './storefront/routes.ts';
import { registerOAuth } from './oauth/routes.ts';
import { openSecretBox } from './secrets/key-file.ts';
import type { SecretBox } from './secrets/secret-box.ts';
import { cimdFetch } from './oauth/cimd-fetch.ts';
import type { Tool } from './registry/define-tool.ts';
import { PROTOCOL_TOOLS, TOOLS, UCP_REST_TOOLS } from './tools/index.ts';
import { registerUcpRoutes } from './http/ucp-routes.ts';
import { registerAcpRoutes } from './http/acp-routes.ts';

export type AppDeps = {
  db: Db;
  /** Defaults to the full registry; tests may add tools (e.g. a deprecated one). */
  tools?: readonly Tool[];
  /** The checkout protocols' tools (UCP's MCP binding); defaults to all of them. */
  protocolTools?: readonly Tool[];
  /** An ioredis client for shared rate-limit counters. */
  redis?: unknown;
  /** Tests point host names at chosen addresses (webhook endpoint URLs are resolved when they are set). */
  resolve?: Resolver;
  /** Where logs go; pino's JSON lines on stdout when unset (src/log-format.ts picks a human format on a terminal). */
  logStream?: NodeJS.WritableStream;
  /** Set to draining by the shutdown handler; /readyz then answers 503. */
  lifecycle?: Lifecycle;
  /** Observes every request when metrics are served (METRICS_PORT). */
  metrics?: Metrics;
  /** Seals the secrets kept in the database; defaults to SECRETS_KEY's, or DATA_DIR's generated key (src/secrets/). */
  secrets?: SecretBox;
};

/** Builds the whole service without listening (tests inject requests; src/server.ts listens). */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const tools = deps.tools ?? TOOLS;
  const app = Fastify({
    logger: { level: config.logLevel, stream: deps.logStream },
    bodyLimit: config.bodyLimitBytes,
    // Rate limits, request logs and audit entries use request.ip: the socket address, or the client named in
    // X-Forwarded-For by a peer TRUST_PROXY trusts. Trusting any peer would let callers pick their own address.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    genReqId: newRequestId,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
  });

  logTraceparent(app);
  deps.metrics?.instrument(app, tools.map((t) => t.name));

  // Fastify parses text/plain by default; tool calls are JSON only.
  app.removeContentTypeParser('text/plain');

  app.decorateRequest('principal', null);
  app.decorateRequest('rateLimits', null as never);
  app.addHook('onRequest', async (req, reply) => {
    req.rateLimits = [];
    reply.header('X-Request-Id', req.id);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.rateLimits?.length) reply.headers(rateLimitHeaders(req.rateLimits));
    return payload;
  });

  if (config.outbound.allowPrivate) app.log.warn(ALLOW_PRIVATE_WARNING);
  setUpImageSearch(config, { redis: deps.redis, onCacheError: (err) => app.log.warn({ err }, 'image search cache unavailable') });
  if (deps.resolve) useResolver(config, deps.resolve);

  app.setErrorHandler((err, req, reply) => sendProblem(req, reply, err));

  const limiters = await createLimiters(app, config, deps.redis);
  const keys = new KeyStore(deps.db);
  const secrets = deps.secrets ?? (await openSecretBox(config));
  const tokens = registerOAuth(app, { config, db: deps.db, keys, fetch: cimdFetch(config), limiters, secrets });
  const authenticate = bearerAuthenticator(keys, tokens, config);
  const guard = createRequestGuard(limiters, authenticate);
  const invokeDeps = { db: deps.db, config, secrets };

  registerToolRoutes(app, invokeDeps, tools, guard, limiters);
  // The checkout protocols' tools join the MCP catalog (listed only to keys with checkout:agent) and back their REST routes.
  const protocolTools = deps.protocolTools ?? PROTOCOL_TOOLS;
  const mcp = registerMcp(app, {
    deps: invokeDeps, tools: [...tools, ...protocolTools], guard, limiters, config,
    adminGuard: createRequestGuard(limiters, authenticate, { requireCredentials: true }),
  });
  registerUcpRoutes(app, { deps: invokeDeps, config, tools: [...protocolTools, ...UCP_REST_TOOLS], guard, limiters });
  registerAcpRoutes(app, { deps: invokeDeps, config, guard, limiters });
  registerDiscoveryRoutes(app, { config, tools, mcp });
  registerReference(app);
  registerStripeWebhook(app, { db: deps.db, config, limiters });
  registerHealthRoutes(app, { db: deps.db, lifecycle: deps.lifecycle ?? { draining: false } });
  const storefront = registerStorefront(app, { db: deps.db, config, secrets, limiter: limiters.anon });
  app.setNotFoundHandler((req, reply) =>
    storefront.answersNotFound(req)
      ? storefront.sendNotFound(req, reply)
      : sendProblem(req, reply, new AppError('not_found', `Nothing at ${req.method} ${req.url.split('?')[0]}.`)),
  );

  return app;
}
