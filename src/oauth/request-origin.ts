import type { FastifyRequest } from 'fastify';

/**
 * oidc-provider is a Koa app run with `proxy` on: it builds absolute URLs (the endpoints in its metadata, the way
 * back after the consent page) from X-Forwarded-Proto and X-Forwarded-Host, marks cookies Secure by the scheme, and
 * takes the client address from X-Forwarded-For. Before a request reaches it those three headers are overwritten
 * with what the service itself decided: `baseUrl` (PUBLIC_BASE_URL, else the origin Fastify derived under
 * TRUST_PROXY) and `req.ip` (also under TRUST_PROXY). So a peer TRUST_PROXY does not trust cannot move the
 * authorization server to another origin, and a trusted proxy moves it exactly as it moves every other link.
 */
export function pinOrigin(req: FastifyRequest, baseUrl: string): void {
  const { host, protocol } = new URL(baseUrl);
  req.raw.headers['x-forwarded-host'] = host;
  req.raw.headers['x-forwarded-proto'] = protocol.slice(0, -1);
  req.raw.headers['x-forwarded-for'] = req.ip;
}
