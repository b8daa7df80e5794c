import { z } from 'zod';
import type { Tool } from './define-tool.ts';

/** One entity a write changed (or would change, in a dry run): the `changes` items of invokeTool's result. */
export const ChangeSchema = z.object({
  entityType: z.string(),
  entityId: z.string(),
  before: z.unknown().describe('The entity before the change; null when the change created it.'),
  after: z.unknown().describe('The entity after the change; null when the change deleted it.'),
  meta: z.unknown().optional().describe('Facts about the call that are not entity state (e.g. an image’s alt text).'),
  revertOf: z.string().optional().describe('Set by audit.revert: the audit entry it reverted.'),
});

/**
 * The success body of a tool call, i.e. what invokeTool returns: the HTTP 200 body, the MCP structuredContent and
 * the OpenAPI 200 schema all come from here. One object (not a union of the normal and dry-run shapes) because
 * MCP output schemas must be `type: object`. `change` lets OpenAPI pass a copy of ChangeSchema named as a component.
 */
export function resultEnvelope(tool: Tool, change: z.ZodType = ChangeSchema) {
  const base = z.object({ ok: z.literal(true), result: tool.output });
  if (!tool.write) return base;
  return base.extend({
    dryRun: z.literal(true).optional().describe('Present only on a dry run ("dryRun": true in the request): nothing was changed.'),
    changes: z.array(change).optional().describe('Present only on a dry run: the changes the call would make.'),
  });
}
