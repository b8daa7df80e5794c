import type { Tx } from '../db/client.ts';

export type Snapshot = Record<string, unknown>;

/**
 * An entity whose audited changes audit.revert can undo. Snapshots are the entity's row as plain JSON
 * (json-snapshot.ts); `restore(null)` means the entity did not exist before, so it is removed.
 */
export type ReversibleEntity = {
  entityType: string;
  /** The tools whose entries of this entity may be reverted. */
  tools: readonly string[];
  load: (tx: Tx, entityId: string) => Promise<Snapshot | null>;
  restore: (tx: Tx, entityId: string, snapshot: Snapshot | null) => Promise<void>;
};

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
