import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { AppError, PROBLEMS, type ProblemCode } from '../errors.ts';
import { MCP_PATH, SERVER_CARD_PATHS } from '../mcp/server-card.ts';
import { MCP_ADMIN_PATH, PROTECTED_RESOURCE_METADATA_PATH } from '../oauth/resources.ts';
import { buildDocument, OPENAPI_CONTENT_TYPE } from '../openapi/build-document.ts';
import type { Tool } from '../registry/define-tool.ts';
import { baseUrlOf } from './base-url.ts';
import { HTML_CSP, renderDocsPage, renderProblemPage } from './docs-page.ts';

export const API_CATALOG_PATH = '/.well-known/api-catalog';
const LINKSET_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
const HTML_HEADERS = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': HTML_CSP, 'Cache-Control': 'public, max-age=300' };

/**
 * Discovery for humans and agents: the RFC 9727 API catalog, the OpenAPI document, its rendered reference at
 * /docs, and one page per problem code (the `type` URIs of problem+json). All are generated from the registry,
 * public, and outside the rate-limit guard (static, cacheable documents).
 */
export function registerWellKnown(app: FastifyInstance, opts: { config: Config; tools: readonly Tool[] }): void {
  // Built on first use, not in buildApp: generating the document takes ~1 s cold, which every test app would pay.
  let built: { json: Buffer; html: string } | undefined;
  const documents = () => {
    if (!built) {
      const document = buildDocument(opts.tools);
      built = { json: Buffer.from(JSON.stringify(document)), html: renderDocsPage(document) };
    }
    return built;
  };

  // Both JSON documents are sent as Buffers: for a string Fastify rewrites a json media type (appends charset,
  // re-quotes `version=3.1`), and these two media types are spelled out by their specifications.
  app.get('/openapi.json', async (_req, reply) =>
    reply.headers({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300' }).type(OPENAPI_CONTENT_TYPE).send(documents().json),
  );

  // Fastify answers HEAD from this GET route with the same headers, so HEAD carries the rel="api-catalog" Link too.
  app.get(API_CATALOG_PATH, async (req, reply) => {
    const base = baseUrlOf(req, opts.config);
    return reply
      .headers({ Link: `<${base}${API_CATALOG_PATH}>; rel="api-catalog"`, 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=3600' })
      .type(LINKSET_TYPE)
      .send(Buffer.from(JSON.stringify(apiCatalog(base))));
  });

  app.get('/docs', async (_req, reply) => reply.headers(HTML_HEADERS).send(documents().html));

  app.get('/problems/:code', async (req, reply) => {
    const { code } = req.params as { code: string };
    if (!Object.hasOwn(PROBLEMS, code)) throw new AppError('not_found', `There is no problem code "${code}".`);
    return reply.headers(HTML_HEADERS).send(renderProblemPage(code as ProblemCode));
  });
}

/** RFC 9727 linkset: the tool API described by OpenAPI, and the MCP endpoint described by its server card. */
function apiCatalog(base: string) {
  return {
    linkset: [
      {
        anchor: `${base}/api/v1`,
        'service-desc': [{ href: `${base}/openapi.json`, type: OPENAPI_CONTENT_TYPE }],
        'service-doc': [{ href: `${base}/docs`, type: 'text/html' }],
        status: [{ href: `${base}/health`, type: 'application/json' }],
      },
      {
        anchor: `${base}${MCP_PATH}`,
        'service-desc': [{ href: `${base}${SERVER_CARD_PATHS[0]}`, type: 'application/json' }],
        'service-doc': [{ href: `${base}/docs`, type: 'text/html' }],
      },
      {
        // The MCP URL for hosts that sign in with OAuth; service-meta is its RFC 9728 document.
        anchor: `${base}${MCP_ADMIN_PATH}`,
        'service-desc': [{ href: `${base}${SERVER_CARD_PATHS[0]}`, type: 'application/json' }],
        'service-doc': [{ href: `${base}/docs`, type: 'text/html' }],
        'service-meta': [{ href: `${base}${PROTECTED_RESOURCE_METADATA_PATH}${MCP_ADMIN_PATH}`, type: 'application/json' }],
      },
    ],
  };
}
