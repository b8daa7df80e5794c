import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/**
 * The absolute origin that discovery documents (server card, API catalog, protected-resource metadata) point at:
 * PUBLIC_BASE_URL when set (behind a proxy or TLS terminator it is the only trustworthy answer), else the
 * request's own scheme and Host, or X-Forwarded-Proto/-Host when the peer is a proxy TRUST_PROXY trusts (Fastify's
 * `trustProxy` decides; an untrusted peer's forwarded headers are ignored).
 */
export function baseUrlOf(req: FastifyRequest, config: Config): string {
  return config.publicBaseUrl ?? `${req.protocol}://${req.host || `${config.host}:${config.port}`}`;
}

/**
 * Without PUBLIC_BASE_URL, whatever is built from baseUrlOf differs per Host (and per forwarded host and scheme from
 * a trusted proxy): a shared cache must keep one copy per value, never hand one Host's document to another.
 */
export function originVary(config: Config): Record<string, string> {
  return config.publicBaseUrl ? {} : { Vary: 'Host, X-Forwarded-Host, X-Forwarded-Proto' };
}
