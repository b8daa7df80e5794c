import type { Config } from '../config.ts';

/**
 * The fetch the authorization server uses for Client ID Metadata Documents. The library passes its own
 * SSRF-guarding dispatcher (refuses special-use addresses) and a 2.5 s timeout; OUTBOUND_ALLOW_PRIVATE=1 drops
 * the dispatcher so local tests can serve documents from loopback.
 */
export function cimdFetch(config: Config): typeof fetch {
  if (!config.outboundAllowPrivate) return (input, init) => fetch(input, init);
  return (input, init) => fetch(input, { ...init, dispatcher: undefined } as RequestInit);
}
