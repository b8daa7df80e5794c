/** A value after plainJson: every bigint a number, every Date an ISO 8601 string, at any depth. */
export type PlainJson<T> = T extends bigint
  ? number
  : T extends Date
    ? string
    : T extends readonly (infer E)[]
      ? PlainJson<E>[]
      : T extends object
        ? { [K in keyof T]: PlainJson<T[K]> }
        : T;

/**
 * Rows become plain JSON for audit snapshots and API output: BigInt → number (the API bounds every integer to
 * ±2^53-1, so this is exact) and Date → ISO 8601 UTC string.
 */
export function plainJson<T>(value: T): PlainJson<T>;
export function plainJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plainJson);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = plainJson(v);
    return out;
  }
  return value;
}
