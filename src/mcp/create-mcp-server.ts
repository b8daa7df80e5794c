import type { FastifyBaseLogger } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type Tool as McpToolDefinition,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { AppError, toProblem } from '../errors.ts';
import type { Principal, Tool } from '../registry/define-tool.ts';
import { deprecationNotice } from '../registry/deprecation-notice.ts';
import { parseIdempotencyKey } from '../registry/idempotency.ts';
import { invokeTool, type InvokeDeps } from '../registry/invoke-tool.ts';
import { resultEnvelope } from '../registry/result-envelope.ts';

export const MCP_SERVER_INFO = { name: 'agent-api', title: 'Agent API', version: '1.0.0' } as const;

/** The SDK's protocol versions that have the Streamable HTTP transport (introduced in 2025-03-26). */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= '2025-03-26');

const INSTRUCTIONS =
  'Storefront and CMS tools. Without credentials only the public catalog and site tools are listed; send ' +
  '"Authorization: Bearer <API key>" to list and call the tools of the key\'s scopes. Write tools accept ' +
  '"dryRun": true to preview their changes; destructive ones need "confirm": true. Failed calls return isError ' +
  'with RFC 9457 problem JSON (code, detail, resolution). Amounts are integers in øre.';

// Each Server would otherwise build its own Ajv (it only validates elicitation replies, which we never request).
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** A registry tool with its MCP definition, computed once per app (JSON Schema conversion is not free). */
export type McpCatalogEntry = { tool: Tool; definition: McpToolDefinition };
export type McpCatalog = ReadonlyMap<string, McpCatalogEntry>;

/**
 * tools/call as the SDK defines it, except that `arguments` may be any JSON value. With the SDK's own schema a
 * non-object `arguments` ([1], "x", null, 42) fails before any handler runs and comes back as JSON-RPC -32603
 * "Internal error" carrying a zod dump; accepted here, it reaches invokeTool and gets the problem HTTP gives a body
 * that is not an object (400 invalid_body; hardening.md §3 rows 4 and 37).
 */
const CallToolAnyArgumentsSchema = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() }),
});

export function buildMcpCatalog(tools: readonly Tool[]): McpCatalog {
  return new Map(tools.map((tool) => [tool.name, { tool, definition: mcpDefinition(tool) }]));
}

function mcpDefinition(tool: Tool): McpToolDefinition {
  const scopeNote = tool.anonymous ? 'No key needed.' : `Needs a key with scope ${tool.scope}.`;
  return {
    name: tool.name,
    title: tool.title,
    description: [deprecationNotice(tool), tool.description, scopeNote].filter(Boolean).join('\n\n'),
    inputSchema: objectJsonSchema(tool.name, tool.input, 'input'),
    outputSchema: objectJsonSchema(tool.name, resultEnvelope(tool), 'output'),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** MCP requires `type: "object"` for both schemas; test/mcp/mcp.test.ts lists every tool, so a tool breaking that fails CI. */
function objectJsonSchema(name: string, schema: z.ZodType, io: 'input' | 'output'): McpToolDefinition['inputSchema'] {
  const json: Record<string, unknown> = { ...z.toJSONSchema(schema, { io }) };
  if (json.type !== 'object') throw new Error(`MCP ${io} schema of ${name} is not an object schema`);
  return { ...json, type: 'object' };
}

/** What tools/list shows: anonymous tools to everyone, plus the tools of the key's scopes (spec §1, §5). */
export function isVisibleTo(tool: Tool, principal: Principal | null): boolean {
  return tool.anonymous || (principal?.scopes.has(tool.scope) ?? false);
}

export type McpCallContext = {
  principal: Principal | null;
  requestId: string;
  log: FastifyBaseLogger;
  /** The problem `instance` for failures of this HTTP request. */
  instance: string;
};

/**
 * One low-level SDK `Server` per HTTP request (stateless: any instance answers any request). Not `McpServer`:
 * its registerTool validates arguments with the SDK's own messages before our handler runs, which would break
 * parity with HTTP (a missing `confirm` must be 422 confirmation_required, a bad field 400 invalid_request), and it
 * only accepts object output schemas. Here every call goes through invokeTool, exactly like POST /api/v1/tools/*.
 */
export function createMcpServer(deps: InvokeDeps, catalog: McpCatalog, ctx: McpCallContext): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...catalog.values()].filter((e) => isVisibleTo(e.tool, ctx.principal)).map((e) => e.definition),
  }));

  // Registered through Protocol, not Server: Server wraps every tools/call handler in a re-validation against the
  // strict CallToolRequestSchema (and task support, which this server does not declare).
  Protocol.prototype.setRequestHandler.call(server, CallToolAnyArgumentsSchema, async (request): Promise<CallToolResult> => {
    const entry = catalog.get(request.params.name);
    if (!entry) {
      // The MCP spec makes an unknown tool a protocol error (-32602); data still carries our problem.
      const problem = toProblem(new AppError('unknown_tool', `There is no tool named "${request.params.name}".`), ctx.instance);
      throw new McpError(ErrorCode.InvalidParams, problem.detail, problem);
    }
    const { tool } = entry;
    try {
      const idempotencyKey = tool.write ? idempotencyKeyOf(request.params._meta) : undefined;
      const { replayed, ...outcome } = (await invokeTool(deps, {
        tool,
        // HTTP requires a body; MCP arguments are optional, and omitting them means "no fields" (null is not omitting).
        body: request.params.arguments === undefined ? {} : request.params.arguments,
        principal: ctx.principal,
        requestId: ctx.requestId,
        log: ctx.log,
        idempotencyKey,
      }));
      return {
        // structuredContent is the HTTP success body; the text block repeats it for clients without structured output.
        content: [{ type: 'text', text: JSON.stringify(outcome) }],
        structuredContent: outcome,
        ...(replayed ? { _meta: { idempotentReplayed: true } } : {}),
      };
    } catch (err) {
      return toolError(err, ctx);
    }
  });

  return server;
}

/** The MCP counterpart of the Idempotency-Key header: `_meta.idempotencyKey` of tools/call. */
function idempotencyKeyOf(meta: Record<string, unknown> | undefined): string | undefined {
  const raw = meta?.idempotencyKey;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new AppError('invalid_idempotency_key', '_meta.idempotencyKey must be a string.');
  return parseIdempotencyKey(raw);
}

/** A failed call is a tool result, never a transport error: the text is the same problem JSON HTTP would send. */
function toolError(err: unknown, ctx: McpCallContext): CallToolResult {
  const problem = toProblem(err, ctx.instance);
  if (problem.status >= 500) ctx.log.error({ err }, 'MCP tool call failed');
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
}
