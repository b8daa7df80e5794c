import type { CallToolResult, InputRequiredResult, ServerContext, Tool as McpToolDefinition } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { describeIssues } from '../registry/invoke-tool.ts';
import { compactSchema } from './compact-schema.ts';
import { describeTool, type McpCatalogEntry, type SchemaStyle } from './tool-catalog.ts';
import { toolResult } from './tool-result.ts';

/**
 * The lean toolset (`/api/mcp?toolset=discovery`) for hosts that cannot afford the full tool list: three
 * meta-tools that find tools, describe one, and call one by name. Calls take the same path as tools/call of the
 * tool itself (same invokeTool, scope checks, approval and results), so nothing differs but the list's size.
 */

const FindInput = z.strictObject({
  query: z.string().max(200).optional().describe('Words that must all occur in the name, title or description.'),
  scope: z.string().max(100).optional().describe('Only tools of this scope, e.g. products:write.'),
});
const DescribeInput = z.strictObject({ name: z.string().min(1).max(200) });
const CallInput = z.strictObject({
  name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).optional().describe('The tool’s arguments, as its inputSchema describes them.'),
});

const META_TOOLS = [
  {
    name: 'tools.find',
    title: 'Find tools',
    description: 'Lists the tools you may call whose text matches all query words (or of one scope): name, title, description, scope.',
    input: FindInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'tools.describe',
    title: 'Describe a tool',
    description: 'One tool’s full definition: description, inputSchema, outputSchema, annotations.',
    input: DescribeInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'tools.call',
    title: 'Call a tool',
    description: 'Calls a tool by name with its arguments; the result is the tool’s own result. Write tools may change data.',
    input: CallInput,
    annotations: { destructiveHint: true, openWorldHint: false },
  },
] as const;

export const DISCOVERY_TOOL_NAMES: ReadonlySet<string> = new Set(META_TOOLS.map((t) => t.name));

// Built once: the three definitions do not depend on the caller.
const DEFINITIONS: McpToolDefinition[] = META_TOOLS.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: { ...compactSchema(z.toJSONSchema(t.input, { io: 'input' }), 'input', 'inline'), type: 'object' },
  annotations: t.annotations,
}));

export type DiscoveryToolsetDeps = {
  /** The catalog entries the caller may use. */
  visible: () => McpCatalogEntry[];
  style: SchemaStyle;
  /** tools/call of one registry tool, exactly as the full toolset runs it. */
  callTool: (name: string, args: unknown, meta: Record<string, unknown> | undefined, ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>;
};

export function discoveryToolset(deps: DiscoveryToolsetDeps) {
  const find = (input: z.infer<typeof FindInput>) => {
    const words = (input.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return deps
      .visible()
      .filter(({ tool }) => input.scope === undefined || tool.scope === input.scope)
      .filter(({ tool }) => {
        const text = `${tool.name} ${tool.title} ${tool.description}`.toLowerCase();
        return words.every((w) => text.includes(w));
      })
      .map(({ tool }) => ({ name: tool.name, title: tool.title, description: describeTool(tool), scope: tool.scope }));
  };

  const describe = ({ name }: z.infer<typeof DescribeInput>) => {
    const entry = deps.visible().find((e) => e.tool.name === name);
    if (!entry) throw new AppError('unknown_tool', `There is no tool named "${name}" that this caller may use; tools.find lists them.`);
    return { ...entry.definition(deps.style), outputSchema: entry.fullOutputSchema(deps.style) };
  };

  return {
    definitions: DEFINITIONS,
    async call(name: string, args: unknown, meta: Record<string, unknown> | undefined, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
      if (name === 'tools.find') return toolResult({ ok: true, result: find(parse(FindInput, args)) });
      if (name === 'tools.describe') return toolResult({ ok: true, result: describe(parse(DescribeInput, args)) });
      const call = parse(CallInput, args);
      return deps.callTool(call.name, call.arguments, meta, ctx);
    },
  };
}

function parse<S extends z.ZodType>(schema: S, args: unknown): z.infer<S> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) throw new AppError('invalid_request', describeIssues(parsed.error.issues));
  return parsed.data;
}
