import { isIP } from 'node:net';
import { PATHS } from '../http/paths.ts';
import { SCOPES } from '../registry/scopes.ts';
import { MCP_PROTOCOL_VERSIONS, MCP_SERVER_INFO, SERVER_CAPABILITIES } from './create-mcp-server.ts';
import type { McpCatalog } from './tool-catalog.ts';

export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';

const DESCRIPTION =
  'Storefront and CMS tools: catalog search and site content anonymously; products, categories, pages, services, orders, ' +
  'discounts and more with a scoped Bearer API key.';

/**
 * The MCP server card (experimental-ext-server-card; server.json shape), generated from the registry. Name,
 * version, capabilities and protocol versions are the ones server/discover answers. It lists the anonymous tools
 * only: what any client can use before it has a key. It holds no secrets and depends only on the base URL.
 */
export function buildServerCard(baseUrl: string, catalog: McpCatalog) {
  const anonymous = [...catalog.values()].filter((e) => e.tool.anonymous).map((e) => e.definition('shared'));
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: serverName(baseUrl),
    version: MCP_SERVER_INFO.version,
    title: MCP_SERVER_INFO.title,
    description: DESCRIPTION,
    websiteUrl: `${baseUrl}${PATHS.docs}`,
    remotes: [
      {
        type: 'streamable-http',
        url: `${baseUrl}${PATHS.mcp}`,
        supportedProtocolVersions: MCP_PROTOCOL_VERSIONS,
        headers: [
          {
            name: 'Authorization',
            description: 'Bearer API key: optional for the public catalog and site tools; unlocks the tools of the key’s scopes.',
            isRequired: false,
            isSecret: true,
          },
        ],
        authentication: { required: false, schemes: ['bearer'] },
      },
      {
        // The same server for hosts that sign in with OAuth: unauthenticated requests get the 401 that starts it.
        type: 'streamable-http',
        url: `${baseUrl}${PATHS.mcpAdmin}`,
        supportedProtocolVersions: MCP_PROTOCOL_VERSIONS,
        authentication: { required: true, schemes: ['oauth2', 'bearer'] },
      },
    ],
    capabilities: SERVER_CAPABILITIES,
    tools: anonymous,
    _meta: {
      'agent-api/access': {
        serverInfoName: MCP_SERVER_INFO.name,
        anonymousTools: anonymous.map((t) => t.name),
        unlock:
          'Send "Authorization: Bearer <API key>" on every request to /api/mcp: tools/list then also shows every tool whose ' +
          'scope the key has, and tools/call runs them. Keys are issued by the operator (npm run cli -- keys create).',
        leanToolset: `${baseUrl}${PATHS.mcp}?toolset=discovery`,
        scopesSupported: SCOPES,
        protectedResourceMetadata: `${baseUrl}${PATHS.protectedResource}`,
        signIn: `${baseUrl}${PATHS.mcpAdmin} answers 401 until the host signs in with OAuth (metadata: ${baseUrl}${PATHS.protectedResource}/admin).`,
        openapi: `${baseUrl}${PATHS.openapi}`,
      },
    },
  };
}

/**
 * The MCP catalog of this origin (experimental-ext-server-card, docs/discovery.md): `specVersion` "draft" and one
 * entry per MCP endpoint — the key endpoint and the sign-in endpoint — each pointing at the card that describes both
 * (its `remotes`). An entry is an AI Catalog entry as is: `identifier`, `displayName` (optional there), the card's
 * media type and its URL.
 */
export function buildMcpCatalogDocument(baseUrl: string) {
  const name = serverName(baseUrl);
  const entry = (cardName: string, displayName: string) => ({
    identifier: catalogIdentifier(cardName),
    displayName,
    type: SERVER_CARD_TYPE,
    url: `${baseUrl}${PATHS.mcpServerCard}`,
  });
  return {
    specVersion: 'draft',
    entries: [entry(name, MCP_SERVER_INFO.title), entry(`${name}-signin`, `${MCP_SERVER_INFO.title} (sign in with OAuth)`)],
  };
}

/**
 * The draft's domain-anchored URN `urn:air:{publisher}:{name}`: the publisher is the card name's reverse-DNS part
 * read forwards (`com.example.shop/agent-api` → `shop.example.com`), the name what follows its '/'.
 */
function catalogIdentifier(cardName: string): string {
  const [namespace, name] = cardName.split('/');
  return `urn:air:${namespace.split('.').reverse().join('.')}:${name}`;
}

/**
 * Registry names are reverse-DNS with exactly one '/': the reversed host of the public URL, e.g.
 * `com.example.shop/agent-api`. IP literals and single-label hosts (localhost) have no DNS name to reverse.
 */
function serverName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  const labels = host.split('.');
  const namespace = isIP(host) || labels.length < 2 ? 'local.agent-api' : labels.reverse().join('.');
  return `${namespace}/${MCP_SERVER_INFO.name}`;
}
