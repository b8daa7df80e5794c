import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/**
 * The absolute origin that discovery documents (server card, API catalog, protected-resource metadata) point at:
 * PUBLIC_BASE_URL when set (behind a proxy or TLS terminator it is the only trustworthy answer), else the
 * request's own scheme and Host.
 */
export function baseUrlOf(req: FastifyRequest, config: Config): string {
  return config.publicBaseUrl ?? `${req.protocol}://${req.host || `${config.host}:${config.port}`}`;
}
