import type { Config } from '../config.ts';
import { serviceSafeFetch } from '../outbound/service-client.ts';
import type { SafeResponse } from '../outbound/safe-fetch.ts';

/** What the Client ID Metadata Document draft and our limits allow: one GET, no redirect, 64 KB, 5 s. */
const LIMITS = { maxBytes: 64 * 1024, timeoutMs: 5_000, maxRedirects: 0 } as const;
/** A document is kept at least this long whatever its Cache-Control says; the library keeps it longer when asked. */
export const CIMD_CACHE_MIN_SECONDS = 300;
/** A fetch that failed (no answer, not 200, too large, refused address) is not tried again for this long. */
export const CIMD_FAILURE_CACHE_SECONDS = 30;
/** Distinct document URLs remembered per instance; the oldest goes first. */
const MAX_REMEMBERED = 1_000;

type Outcome = Pick<SafeResponse, 'status' | 'headers'> & { body: string | null };
type Remembered = { until: number; outcome: Promise<Outcome> };

/**
 * The fetch the authorization server uses for Client ID Metadata Documents: the service's safe outbound client
 * (https only, public addresses only, pinned DNS), adapted to the Fetch API the library calls. Its own checks
 * (status 200, JSON, client_id equal to the URL, caching per Cache-Control) then apply to the answer.
 *
 * Whatever the request rate, a URL is fetched at most once per CIMD_CACHE_MIN_SECONDS (CIMD_FAILURE_CACHE_SECONDS
 * after a failure): concurrent requests share one fetch, and the outcome, failures included, is remembered. The
 * library's own cache is per issuer, holds 100 documents and forgets failures at once, so it cannot promise that.
 */
export function cimdFetch(config: Config): typeof fetch {
  const safeFetch = serviceSafeFetch(config);
  const remembered = new Map<string, Remembered>();

  const fetchOnce = async (url: string): Promise<Outcome> => {
    const res = await safeFetch(url, { method: 'GET', headers: { accept: 'application/json' }, ...LIMITS });
    return { status: res.status, headers: res.headers, body: res.body.byteLength > 0 ? res.text() : null };
  };

  const lookup = (url: string, now: number): Remembered => {
    const hit = remembered.get(url);
    if (hit && hit.until > now) return hit;
    remembered.delete(url);
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
    const entry: Remembered = { until: Number.POSITIVE_INFINITY, outcome: fetchOnce(url) };
    remembered.set(url, entry);
    entry.outcome.then(
      (o) => (entry.until = Date.now() + (o.status === 200 ? CIMD_CACHE_MIN_SECONDS : CIMD_FAILURE_CACHE_SECONDS) * 1000),
      () => (entry.until = Date.now() + CIMD_FAILURE_CACHE_SECONDS * 1000),
    );
    return entry;
  };

  return async (input) => {
    const outcome = await lookup(input instanceof Request ? input.url : String(input), Date.now()).outcome;
    return new Response(outcome.body, { status: outcome.status, headers: outcome.headers });
  };
}
