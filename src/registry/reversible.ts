import type { ReversibleEntity } from '../services/reversible.ts';
import type { Tool } from './define-tool.ts';

export type RevertTarget = { entity: ReversibleEntity; tools: ReadonlySet<string> };

/**
 * What audit.revert may undo, derived from the tools' `audit.reversible` declarations: per entity type, the entity
 * and the tools whose entries of it can be reverted. Two declarations of one entity type must be the same object.
 */
export function revertTargets(tools: readonly Tool[]): ReadonlyMap<string, RevertTarget> {
  const targets = new Map<string, { entity: ReversibleEntity; tools: Set<string> }>();
  for (const tool of tools) {
    for (const entity of tool.reversible) {
      const known = targets.get(entity.entityType);
      if (known && known.entity !== entity) throw new Error(`Two reversible entities share the type "${entity.entityType}" (${tool.name})`);
      if (known) known.tools.add(tool.name);
      else targets.set(entity.entityType, { entity, tools: new Set([tool.name]) });
    }
  }
  return targets;
}
