/**
 * Every route path the service answers, in one leaf module: routes, discovery documents and the documents that
 * point at each other (API catalog, server card, OpenAPI) all take their paths from here, so none can drift.
 */
export const PATHS = {
  /** REST tools: `POST /api/v1/tools/<tool name>`. */
  apiBase: '/api/v1',
  toolPrefix: '/api/v1/tools/',
  mcp: '/api/mcp',
  /** The same MCP server for hosts that sign in with OAuth: every request without credentials is a 401. */
  mcpAdmin: '/api/mcp/admin',
  /** The MCP server card (experimental-ext-server-card). */
  mcpServerCard: '/api/mcp/server-card',
  /** The MCP catalog: the servers this origin hosts, each pointing at its card. */
  mcpCatalog: '/.well-known/mcp/catalog.json',
  /** The same entries as an AI Catalog, where the server-card draft's later text has clients look first. */
  aiCatalog: '/.well-known/ai-catalog.json',
  /** Earlier card locations, still answered with the same card. */
  legacyServerCards: ['/.well-known/mcp/server-card.json', '/.well-known/mcp.json'],
  protectedResource: '/.well-known/oauth-protected-resource/api/mcp',
  apiCatalog: '/.well-known/api-catalog',
  openapi: '/openapi.json',
  /** The agentic checkout protocols' operations (ACP, UCP), a document of their own (src/openapi/checkout-protocols.ts). */
  checkoutOpenapi: '/openapi/checkout.json',
  docs: '/docs',
  problems: '/problems/',
  /** Every problem code, linking to its page. */
  problemIndex: '/problems',
  health: '/health',
  /** Probes for balancers and orchestrators (src/http/health.ts). */
  livez: '/livez',
  readyz: '/readyz',
  /** Stripe's events (docs/payments.md): signed by Stripe, not by a key. */
  stripeWebhook: '/api/payments/stripe/webhook',
} as const;
