import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fresh from 'fresh';
import type { Config } from '../config.ts';
import { AppError, PROBLEMS, type ProblemCode } from '../errors.ts';
import { buildDocument, OPENAPI_CONTENT_TYPE, withServer, type OpenApiDocument } from '../openapi/build-document.ts';
import type { Tool } from '../registry/define-tool.ts';
import { baseUrlOf, originVary } from './base-url.ts';
import { prepare } from '../storefront/respond.ts';
import { HTML_CSP, renderProblemIndex, renderProblemPage } from './docs-page.ts';
import { PATHS } from './paths.ts';
import { UCP_PREFIX, UCP_PROFILE_PATH } from './ucp-routes.ts';
import { ACP_PREFIX } from './acp-routes.ts';
import { buildCheckoutDocument } from '../openapi/checkout-protocols.ts';

const LINKSET_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
const AI_CATALOG_TYPE = 'application/ai-catalog+json';
/** The AI Catalog's format version ("Major.Minor"); the MCP catalog's own is "draft". */
const AI_CATALOG_VERSION = '1.0';
const HTML_HEADERS = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': HTML_CSP, 'Cache-Control': 'public, max-age=300' };

/**
 * Discovery documents are public, cacheable and readable from any browser origin; a browser client may revalidate
 * them (If-None-Match) and read their ETag, as the server-card draft asks of card hosts.
 */
const CORS_CACHEABLE = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
  'Access-Control-Expose-Headers': 'ETag',
  'Cache-Control': 'public, max-age=3600',
};

/** An entry of an AI Catalog, and so of the MCP catalog (a subset of it): one artifact and where to fetch it. */
type CatalogEntry = { identifier: string; displayName: string; type: string; url: string };

/** The MCP documents, built by the MCP layer for a base URL (passed in, so http/ does not depend on mcp/). */
export type McpDiscoveryDocuments = {
  serverCard: (baseUrl: string) => object;
  serverCardType: string;
  catalog: (baseUrl: string) => { specVersion: string; entries: CatalogEntry[] };
};

/**
 * Every discovery document, for humans and agents: the RFC 9727 API catalog (which links all the others), the
 * OpenAPI document and its rendered reference at /docs, one page per problem code (the `type` URIs of
 * problem+json), the MCP server card (at its reserved path and the two earlier ones), the MCP catalog and the AI
 * Catalog that holds the same entries. The RFC 9728
 * documents come with the OAuth routes (src/oauth/routes.ts). All are generated, public, and outside the rate-limit guard.
 */
export function registerDiscoveryRoutes(app: FastifyInstance, opts: { config: Config; tools: readonly Tool[]; mcp: McpDiscoveryDocuments }): void {
  const { config, mcp } = opts;
  // Every document below but the problem pages names the service's origin.
  const discoveryHeaders = { ...CORS_CACHEABLE, ...originVary(config) };
  // Built on first use, not in buildApp: generating the document takes ~1 s cold, which every test app would pay.
  // `servers` names the origin clients reach the service at (PUBLIC_BASE_URL, else the request's own), so the
  // serialized copy is remembered for the last origin asked for.
  let document: OpenApiDocument | undefined;
  const documentFor = servedPerOrigin((base) => withServer((document ??= buildDocument(opts.tools)), base));
  // The checkout protocols' operations (ACP, UCP) are a document of their own, served the same way.
  let checkoutDocument: ReturnType<typeof buildCheckoutDocument> | undefined;
  const checkoutDocumentFor = servedPerOrigin((base) => ({ ...(checkoutDocument ??= buildCheckoutDocument()), servers: [{ url: base, description: 'This service.' }] }));
  // JSON documents whose media type their specification spells out are sent as Buffers: for a string Fastify
  // rewrites a json media type (appends charset, re-quotes parameters). Each carries a strong ETag (the hash of its
  // bytes, so it differs per origin as the bytes do) and a client's current copy is answered 304 without a body.
  const sendJson = (req: FastifyRequest, reply: FastifyReply, type: string, body: object) => {
    const { bytes, etag } = prepare(JSON.stringify(body));
    reply.header('ETag', etag);
    return fresh(req.headers, { etag }) ? reply.code(304).send() : reply.type(type).send(bytes);
  };

  for (const [path, bytesFor] of [[PATHS.openapi, documentFor], [PATHS.checkoutOpenapi, checkoutDocumentFor]] as const) {
    app.get(path, async (req, reply) =>
      reply
        .headers({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300', ...originVary(config) })
        .type(OPENAPI_CONTENT_TYPE)
        .send(bytesFor(baseUrlOf(req, config))),
    );
  }

  // Fastify answers HEAD from this GET route with the same headers, so HEAD carries the rel="api-catalog" Link too.
  app.get(PATHS.apiCatalog, async (req, reply) => {
    const base = baseUrlOf(req, config);
    reply.headers({ ...discoveryHeaders, Link: `<${base}${PATHS.apiCatalog}>; rel="api-catalog"` });
    return sendJson(req, reply, LINKSET_TYPE, apiCatalog(base, mcp.serverCardType));
  });

  // /docs itself is the reference renderer's (src/http/reference/); the problem pages and their index stay here.
  app.get(PATHS.problemIndex, async (_req, reply) => reply.headers(HTML_HEADERS).send(renderProblemIndex()));

  app.get(`${PATHS.problems}:code`, async (req, reply) => {
    const { code } = req.params as { code: string };
    if (!Object.hasOwn(PROBLEMS, code)) throw new AppError('not_found', `There is no problem code "${code}".`);
    return reply.headers(HTML_HEADERS).send(renderProblemPage(code as ProblemCode));
  });

  // The earlier card paths answer the very same bytes, typed as plain JSON as they always were.
  const cardRoutes: [string, string][] = [[PATHS.mcpServerCard, mcp.serverCardType], ...PATHS.legacyServerCards.map((p): [string, string] => [p, 'application/json'])];
  for (const [path, type] of cardRoutes) {
    app.get(path, async (req, reply) => sendJson(req, reply.headers(discoveryHeaders), type, mcp.serverCard(baseUrlOf(req, config))));
  }
  app.get(PATHS.mcpCatalog, async (req, reply) => sendJson(req, reply.headers(discoveryHeaders), 'application/json', mcp.catalog(baseUrlOf(req, config))));
  app.get(PATHS.aiCatalog, async (req, reply) =>
    sendJson(req, reply.headers(discoveryHeaders), AI_CATALOG_TYPE, { specVersion: AI_CATALOG_VERSION, entries: mcp.catalog(baseUrlOf(req, config)).entries }),
  );
}

/**
 * The serialized copy of a document that names the origin, remembered for the last origin asked for (one service
 * is reached at one origin, PUBLIC_BASE_URL or its Host).
 */
function servedPerOrigin(build: (base: string) => object): (base: string) => Buffer {
  let served: { base: string; json: Buffer } | undefined;
  return (base) => {
    if (served?.base !== base) served = { base, json: Buffer.from(JSON.stringify(build(base))) };
    return served.json;
  };
}

/**
 * RFC 9727 linkset: the tool API described by OpenAPI; the MCP endpoint described by its server card (and the
 * earlier card paths, the MCP and AI catalogs and its protected-resource metadata); the checkout protocols' entry
 * points (UCP, ACP) described by their OpenAPI document (and UCP's profile). Every discovery document is linked.
 */
function apiCatalog(base: string, serverCardType: string) {
  const doc = { href: `${base}${PATHS.docs}`, type: 'text/html' };
  const checkoutDesc = { href: `${base}${PATHS.checkoutOpenapi}`, type: OPENAPI_CONTENT_TYPE };
  const catalogs = [
    { href: `${base}${PATHS.mcpCatalog}`, type: 'application/json' },
    { href: `${base}${PATHS.aiCatalog}`, type: AI_CATALOG_TYPE },
  ];
  return {
    linkset: [
      {
        anchor: `${base}${PATHS.apiBase}`,
        'service-desc': [{ href: `${base}${PATHS.openapi}`, type: OPENAPI_CONTENT_TYPE }],
        'service-doc': [doc],
        status: [{ href: `${base}${PATHS.health}`, type: 'application/json' }],
      },
      {
        anchor: `${base}${PATHS.mcp}`,
        'service-desc': [
          { href: `${base}${PATHS.mcpServerCard}`, type: serverCardType },
          ...PATHS.legacyServerCards.map((p) => ({ href: `${base}${p}`, type: 'application/json' })),
        ],
        'service-meta': [
          ...catalogs,
          { href: `${base}${PATHS.protectedResource}`, type: 'application/json' },
        ],
        'service-doc': [doc],
      },
      {
        // The MCP URL for hosts that sign in with OAuth (its RFC 9728 document is served by src/oauth/routes.ts).
        anchor: `${base}${PATHS.mcpAdmin}`,
        'service-desc': [{ href: `${base}${PATHS.mcpServerCard}`, type: serverCardType }],
        'service-meta': [
          ...catalogs,
          { href: `${base}${PATHS.protectedResource}/admin`, type: 'application/json' },
        ],
        'service-doc': [doc],
      },
      {
        // UCP's REST binding (docs/agentic-checkout.md): described by the business profile, which also names the MCP
        // binding, and by the checkout protocols' OpenAPI document.
        anchor: `${base}${UCP_PREFIX}`,
        'service-desc': [{ href: `${base}${UCP_PROFILE_PATH}`, type: 'application/json' }, checkoutDesc],
        'service-doc': [doc],
      },
      {
        // ACP's checkout sessions (docs/agentic-checkout.md): the protocol has no discovery document of its own.
        anchor: `${base}${ACP_PREFIX}`,
        'service-desc': [checkoutDesc],
        'service-doc': [doc],
      },
    ],
  };
}
