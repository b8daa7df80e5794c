import type { Tx } from '../db/client.ts';
import type { Snapshot } from '../domain/revert.ts';

/**
 * An entity whose audited changes audit.revert can undo. Snapshots are the entity's row as plain JSON
 * (domain/json-snapshot.ts); `restore(null)` means the entity did not exist before, so it is removed. Which tools'
 * entries may be reverted is declared on the tools (`audit: { reversible: [entity] }`), not here.
 */
export type ReversibleEntity = {
  entityType: string;
  load: (tx: Tx, entityId: string) => Promise<Snapshot | null>;
  restore: (tx: Tx, entityId: string, snapshot: Snapshot | null) => Promise<void>;
};
