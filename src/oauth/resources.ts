import { PATHS } from '../http/paths.ts';
import { SCOPES } from '../registry/scopes.ts';

export const OAUTH_PATH = '/oauth';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
/** The MCP URL for hosts that must sign in: every unauthenticated request gets the 401 that starts OAuth. */
export const MCP_ADMIN_PATH = PATHS.mcpAdmin;

/**
 * The URLs this service protects, each a resource identifier (RFC 8707) with its own RFC 9728 document. They are one
 * service: a token issued for any of them is accepted on all of them, with the same scope checks as an API key,
 * and refused by any other service. Longest path first, so the first prefix match is the most specific.
 */
export const PROTECTED_RESOURCES = [
  { path: MCP_ADMIN_PATH, name: 'Agent API over MCP (sign-in required)' },
  { path: PATHS.mcp, name: 'Agent API over MCP' },
  { path: PATHS.apiBase, name: 'Agent API tools over HTTP' },
] as const;

export function issuerOf(baseUrl: string): string {
  return `${baseUrl}${OAUTH_PATH}`;
}

export function resourcesOf(baseUrl: string): string[] {
  return PROTECTED_RESOURCES.map((r) => `${baseUrl}${r.path}`);
}

/** The protected resource a request path belongs to, or undefined outside them. */
export function protectedResourceFor(path: string) {
  return PROTECTED_RESOURCES.find((r) => path === r.path || path.startsWith(`${r.path}/`));
}

export function protectedResourceMetadataUrl(baseUrl: string, resourcePath: string): string {
  return `${baseUrl}${PROTECTED_RESOURCE_METADATA_PATH}${resourcePath}`;
}

/** RFC 9728 metadata of one protected URL: where to get tokens and which scopes exist. */
export function protectedResourceMetadata(baseUrl: string, resource: (typeof PROTECTED_RESOURCES)[number], authorizationServer: string) {
  return {
    resource: `${baseUrl}${resource.path}`,
    resource_name: resource.name,
    authorization_servers: [authorizationServer],
    bearer_methods_supported: ['header'],
    scopes_supported: SCOPES,
    resource_documentation: `${baseUrl}/docs`,
  };
}
