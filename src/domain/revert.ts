/** An entity's row as plain JSON (json-snapshot.ts), as audit entries record it. */
export type Snapshot = Record<string, unknown>;

/** A stored snapshot (a Json column) as a Snapshot; anything but a JSON object means "did not exist". */
export function asSnapshot(value: unknown): Snapshot | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...value } : null;
}

/** Turns a plain-JSON snapshot back into column values: named fields become BigInt or Date again. */
export function reviveSnapshot(
  snapshot: Snapshot,
  types: { bigint?: readonly string[]; date?: readonly string[]; omit?: readonly string[] },
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...snapshot };
  for (const f of types.omit ?? []) delete out[f];
  for (const f of types.bigint ?? []) if (typeof out[f] === 'number') out[f] = BigInt(out[f] as number);
  for (const f of types.date ?? []) if (typeof out[f] === 'string') out[f] = new Date(out[f] as string);
  return out;
}

/** Fields that change on every write and say nothing about whether the entity was edited since. */
const VOLATILE = new Set(['updatedAt']);

/** JSON with object keys sorted at every level (jsonb reorders keys, so raw order is meaningless). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function withoutVolatile(s: Snapshot | null): Snapshot | null {
  if (s === null) return null;
  return Object.fromEntries(Object.entries(s).filter(([k]) => !VOLATILE.has(k)));
}

/**
 * Whether the entity changed after an audit entry was written: reverting is safe only while it is still in the
 * state the entry left it in (`after`); otherwise a revert would silently discard the later change.
 */
export function hasChangedSince(entryAfter: Snapshot | null, current: Snapshot | null): boolean {
  return canonical(withoutVolatile(entryAfter)) !== canonical(withoutVolatile(current));
}
