/** The state of one rate-limit policy after counting the current request. */
export type LimitState = {
  /** `anon`, `preauth`, `key`, or the name of a tool with its own limit. */
  policy: string;
  limit: number;
  remaining: number;
  /** Seconds until this policy's window ends. */
  resetSeconds: number;
  windowSeconds: number;
  exceeded: boolean;
};

/**
 * Headers for every policy that counted the request: the structured fields of
 * draft-ietf-httpapi-ratelimit-headers-11 (a List with one quoted policy id per member) plus the legacy
 * RateLimit-Limit/-Remaining/-Reset of the most restrictive policy, and Retry-After when one is exceeded.
 */
export function rateLimitHeaders(counted: readonly LimitState[]): Record<string, string> {
  if (counted.length === 0) return {};
  // One member per policy: an MCP batch may count the same tool's policy several times; the last count is current.
  const states = [...new Map(counted.map((s) => [s.policy, s])).values()];
  const tight = tightest(states);
  const headers: Record<string, string> = {
    'RateLimit-Policy': states.map((s) => `"${s.policy}";q=${s.limit};w=${s.windowSeconds}`).join(', '),
    RateLimit: states.map((s) => `"${s.policy}";r=${s.remaining};t=${s.resetSeconds}`).join(', '),
    'RateLimit-Limit': String(tight.limit),
    'RateLimit-Remaining': String(tight.remaining),
    'RateLimit-Reset': String(tight.resetSeconds),
  };
  const exceeded = states.filter((s) => s.exceeded);
  if (exceeded.length > 0) headers['Retry-After'] = String(Math.max(1, ...exceeded.map((s) => s.resetSeconds)));
  return headers;
}

/** The most restrictive of several states (at least one): an exceeded one first, then the one with least left. */
export function tightest(states: readonly LimitState[]): LimitState {
  return states.reduce((a, b) => ((b.exceeded && !a.exceeded) || b.remaining < a.remaining ? b : a));
}
