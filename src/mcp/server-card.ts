import { isIP } from 'node:net';
import { MCP_ADMIN_PATH, PROTECTED_RESOURCE_METADATA_PATH } from '../oauth/resources.ts';
import { SCOPES } from '../registry/scopes.ts';
import { MCP_PROTOCOL_VERSIONS, MCP_SERVER_INFO, type McpCatalog } from './create-mcp-server.ts';

export const MCP_PATH = '/api/mcp';
export const SERVER_CARD_PATHS = ['/.well-known/mcp/server-card.json', '/.well-known/mcp.json'] as const;
export const PROTECTED_RESOURCE_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/**
 * The MCP server card (SEP-2127's server.json shape; hardening.md §1.5), generated from the registry. It lists the
 * anonymous tools only: what any client can use before it has a key. It holds no secrets and depends only on the
 * base URL, so both card paths serve the same bytes.
 */
export function buildServerCard(baseUrl: string, catalog: McpCatalog) {
  const anonymous = [...catalog.values()].filter((e) => e.tool.anonymous).map((e) => e.definition);
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: serverName(baseUrl),
    version: MCP_SERVER_INFO.version,
    title: MCP_SERVER_INFO.title,
    description:
      'Storefront and CMS tools: catalog search and site content anonymously; products, categories, pages, services, orders, ' +
      'discounts and more with a scoped Bearer API key.',
    websiteUrl: `${baseUrl}/docs`,
    remotes: [
      {
        type: 'streamable-http',
        url: `${baseUrl}${MCP_PATH}`,
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
        url: `${baseUrl}${MCP_ADMIN_PATH}`,
        supportedProtocolVersions: MCP_PROTOCOL_VERSIONS,
        authentication: { required: true, schemes: ['oauth2', 'bearer'] },
      },
    ],
    capabilities: { tools: { listChanged: false } },
    tools: anonymous,
    _meta: {
      'agent-api/access': {
        anonymousTools: anonymous.map((t) => t.name),
        unlock:
          'Send "Authorization: Bearer <API key>" on every request to /api/mcp: tools/list then also shows every tool whose ' +
          'scope the key has, and tools/call runs them. Keys are issued by the operator (npm run cli -- keys create).',
        scopesSupported: SCOPES,
        protectedResourceMetadata: `${baseUrl}${PROTECTED_RESOURCE_PATH}`,
        signIn: `${baseUrl}${MCP_ADMIN_PATH} answers 401 until the host signs in with OAuth (metadata: ${baseUrl}${PROTECTED_RESOURCE_METADATA_PATH}${MCP_ADMIN_PATH}).`,
        openapi: `${baseUrl}/openapi.json`,
      },
    },
  };
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
