import type { Config } from '../config.ts';
import { createSafeFetch, type Resolver, type SafeFetch } from './safe-fetch.ts';

/** Names the service to whoever it calls, with where it runs when that is configured. */
export function outboundUserAgent(config: Config): string {
  return config.publicBaseUrl ? `agent-api (+${config.publicBaseUrl})` : 'agent-api';
}

/** The safe client with the service's configured address rules; `resolve` is for tests that point names at local servers. */
export function serviceSafeFetch(config: Config, resolve?: Resolver): SafeFetch {
  return createSafeFetch({ ...config.outbound, userAgent: outboundUserAgent(config), resolve });
}

export const ALLOW_PRIVATE_WARNING =
  'OUTBOUND_ALLOW_PRIVATE=1: outbound calls may reach loopback and private networks over plain http; use this for local tests and development only';
