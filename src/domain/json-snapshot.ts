import { Prisma } from '../generated/prisma/client.ts';

/**
 * Rows become plain JSON for audit snapshots and API output: BigInt → number (the API bounds every integer to
 * ±2^53-1, so this is exact) and Date → ISO 8601 UTC string.
 */
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

/** A value for a nullable Json column: SQL NULL for null/undefined, plain JSON otherwise. */
export function toJsonValue(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null || value === undefined ? Prisma.DbNull : (plainJson(value) as Prisma.InputJsonValue);
}
