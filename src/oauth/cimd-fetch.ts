import type { Config } from '../config.ts';
import { serviceSafeFetch } from '../outbound/service-client.ts';

/** What the Client ID Metadata Document draft and our limits allow: one GET, no redirect, 64 KB, 5 s. */
const LIMITS = { maxBytes: 64 * 1024, timeoutMs: 5_000, maxRedirects: 0 } as const;

/**
 * The fetch the authorization server uses for Client ID Metadata Documents: the service's safe outbound client
 * (https only, public addresses only, pinned DNS), adapted to the Fetch API the library calls. Its own checks
 * (status 200, JSON, client_id equal to the URL, caching per Cache-Control) then apply to the answer.
 */
export function cimdFetch(config: Config): typeof fetch {
  const safeFetch = serviceSafeFetch(config);
  return async (input) => {
    const res = await safeFetch(input instanceof Request ? input.url : String(input), { method: 'GET', headers: { accept: 'application/json' }, ...LIMITS });
    return new Response(res.body.byteLength > 0 ? res.text() : null, { status: res.status, headers: res.headers });
  };
}
