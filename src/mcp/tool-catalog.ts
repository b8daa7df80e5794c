import type { Tool as McpToolDefinition } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Principal, Tool } from '../registry/define-tool.ts';
import { deprecationNotice } from '../registry/deprecation-notice.ts';
import { resultEnvelope } from '../registry/result-envelope.ts';
import { compactSchema, type SchemaStyle } from './compact-schema.ts';
import { isObject } from './is-object.ts';

export type { SchemaStyle };

/** A registry tool with its MCP definition in each schema style, each computed once (conversion is not free). */
export type McpCatalogEntry = {
  tool: Tool;
  definition: (style: SchemaStyle) => McpToolDefinition;
  /** The output schema with all its structure (tools/list shows it down to the fields of `result`). */
  fullOutputSchema: (style: SchemaStyle) => Record<string, unknown>;
};

/** Tools by name, in a stable order (by name): tools/list is deterministic, so clients can cache and diff it. */
export type McpCatalog = ReadonlyMap<string, McpCatalogEntry>;

export function buildMcpCatalog(tools: readonly Tool[]): McpCatalog {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return new Map(sorted.map((tool) => [tool.name, catalogEntry(tool)]));
}

function catalogEntry(tool: Tool): McpCatalogEntry {
  let inputJson: Record<string, unknown> | undefined;
  let outputJson: Record<string, unknown> | undefined;
  const built = new Map<SchemaStyle, McpToolDefinition>();
  const inputSchema = () => (inputJson ??= withoutSharedNotes(objectJsonSchema(tool.name, tool.input, 'input'), ['dryRun', 'confirm']));
  const outputSchema = () =>
    (outputJson ??= withoutSharedNotes(objectJsonSchema(tool.name, resultEnvelope(tool, TERSE_CHANGE), 'output'), ['dryRun', 'changes']));
  return {
    tool,
    fullOutputSchema: (style) => ({ ...compactSchema(outputSchema(), 'output', style, false), type: 'object' }),
    definition(style) {
      let definition = built.get(style);
      if (!definition) {
        definition = {
          name: tool.name,
          title: tool.title,
          description: describeTool(tool),
          inputSchema: { ...compactSchema(inputSchema(), 'input', style), type: 'object' },
          outputSchema: { ...compactSchema(outputSchema(), 'output', style), type: 'object' },
          annotations: annotationsOf(tool),
        };
        built.set(style, definition);
      }
      return definition;
    },
  };
}

/** A dry run's `changes` items: their fields are described once, in the server instructions. */
const TERSE_CHANGE = z.unknown();

/**
 * The fields every write tool shares (dryRun, confirm, and the dry-run result fields) are explained once in the
 * server instructions rather than in each of thirty schemas.
 */
function withoutSharedNotes(schema: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  if (!isObject(schema.properties)) return schema;
  const properties = { ...schema.properties };
  for (const field of fields) {
    const property = properties[field];
    if (isObject(property)) {
      const { description: _said, ...rest } = property;
      properties[field] = rest;
    }
  }
  return { ...schema, properties };
}

/**
 * The annotations that say something: MCP defines destructive and idempotent hints only for tools that write,
 * and `readOnlyHint: false` / `idempotentHint: false` are the protocol defaults. `destructiveHint` defaults to
 * true, so a write that destroys nothing says `false` explicitly.
 */
function annotationsOf(tool: Tool): McpToolDefinition['annotations'] {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
  if (readOnlyHint) return { readOnlyHint, openWorldHint };
  return { destructiveHint, ...(idempotentHint ? { idempotentHint } : {}), openWorldHint };
}

/**
 * What the tool is for, and (when it applies) its deprecation. No scope note: tools/list only shows a caller the
 * tools it may call.
 */
export function describeTool(tool: Tool): string {
  return [deprecationNotice(tool), tool.description].filter(Boolean).join(' ');
}

/** MCP requires `type: "object"` for both schemas; test/mcp lists every tool, so a tool breaking that fails CI. */
function objectJsonSchema(name: string, schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json: Record<string, unknown> = z.toJSONSchema(schema, { io });
  if (json.type !== 'object') throw new Error(`MCP ${io} schema of ${name} is not an object schema`);
  return json;
}

/** tools/list results by catalog, then by schema style and scope set (see toolListFor). */
const toolLists = new WeakMap<McpCatalog, Map<string, readonly McpToolDefinition[]>>();

/**
 * What tools/list shows this caller in this schema style, built once per scope set and style: the tool set only
 * changes with a deployment, so nothing but a restart invalidates it. Keys hold at most the scope sets of the keys
 * and grants that call (a subset of the registry's scopes each).
 */
export function toolListFor(catalog: McpCatalog, principal: Principal | null, style: SchemaStyle): readonly McpToolDefinition[] {
  let lists = toolLists.get(catalog);
  if (!lists) toolLists.set(catalog, (lists = new Map()));
  const key = `${style} ${principal ? [...principal.scopes].sort().join(' ') : ''}`;
  let list = lists.get(key);
  if (!list) {
    list = [...catalog.values()].filter((e) => isVisibleTo(e.tool, principal)).map((e) => e.definition(style));
    lists.set(key, list);
  }
  return list;
}

/** What tools/list shows: anonymous tools to everyone, plus the tools of the key's scopes. */
export function isVisibleTo(tool: Tool, principal: Principal | null): boolean {
  return tool.anonymous || (principal?.scopes.has(tool.scope) ?? false);
}
