import type { FastifyBaseLogger } from 'fastify';
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { AppError, toProblem } from '../errors.ts';
import type { Principal, Tool } from '../registry/define-tool.ts';
import { parseIdempotencyKey } from '../registry/idempotency.ts';
import { invokeTool, type InvokeDeps, type InvokeRequest, type InvokeResult } from '../registry/invoke-tool.ts';
import { askApproval, decideApproval, needsApproval, runApproved, type ApprovalCodec } from './approval.ts';
import { discoveryToolset, DISCOVERY_TOOL_NAMES } from './discovery-toolset.ts';
import { isVisibleTo, toolListFor, type McpCatalog, type SchemaStyle } from './tool-catalog.ts';
import { isObject } from './is-object.ts';
import { protocolToolError, toolError, toolResult, type ToolCallResult } from './tool-result.ts';

export const MCP_SERVER_INFO = { name: 'agent-api', title: 'Agent API', version: '1.0.0' } as const;

/** The revision without initialize and sessions; requests carry their version in `_meta`. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The 2025-era revisions served: those with the Streamable HTTP transport (introduced in 2025-03-26). */
const LEGACY_PROTOCOL_VERSIONS = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= '2025-03-26');

/** The newest 2025-era revision; revision names are dates, so later ones sort after it. */
export const LATEST_LEGACY_VERSION = LEGACY_PROTOCOL_VERSIONS.reduce((a, b) => (a > b ? a : b));

/** Every revision /api/mcp answers, newest first: what server/discover, the card and -32022 errors list. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];

/**
 * What server/discover, initialize and the server card advertise. `logging`: a client may set a level (2025 era:
 * logging/setLevel; 2026-07-28: per request in `_meta`); the server sends log notifications only when asked.
 */
export const SERVER_CAPABILITIES = { tools: { listChanged: false }, logging: {} };

/** The tool list only changes with a deployment; clients may reuse it this long. */
export const LIST_TTL_MS = 300_000;

const INSTRUCTIONS =
  'Storefront and CMS tools. Without credentials only the public catalog and site tools are listed; send ' +
  '"Authorization: Bearer <API key>" to list and call the tools of the key\'s scopes. Write tools accept ' +
  '"dryRun": true: the call runs in a transaction that is rolled back and returns dryRun: true and changes ' +
  '[{entityType, entityId, before, after}] (before null: created; after null: deleted). Destructive tools need ' +
  '"confirm": true, or on protocol 2026-07-28 ask the person at the client to approve a preview of the change. ' +
  'Send _meta.idempotencyKey on a write to make retries safe. Failed calls return isError with RFC 9457 problem ' +
  'JSON (code, detail, resolution). Amounts are integers in øre. Output schemas show a result\'s fields when they ' +
  'are few; every tool\'s full schema is in /openapi.json.';

// One validator for every per-request Server (each would otherwise build its own Ajv).
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** What one HTTP request to /api/mcp brings to its server: who calls, and how to answer. */
export type McpRequestScope = {
  principal: Principal | null;
  requestId: string;
  /** The client's address (request.ip, after TRUST_PROXY), kept on audit entries. */
  clientAddress: string;
  log: FastifyBaseLogger;
  /** The problem `instance` for failures of this HTTP request. */
  instance: string;
  countToolCall: InvokeRequest['countToolCall'];
  /**
   * Counts a call of a checkout protocol's tool (scope checkout:agent) against the per-platform limit, as the
   * protocols' REST routes count every request (docs/agentic-checkout.md, "Rate limits"); 429 past it.
   */
  countPlatformCall: () => Promise<void>;
  /** `full`: every tool the caller may use; `discovery`: three meta-tools that find, describe and call them. */
  toolset: 'full' | 'discovery';
  /** `$defs`/`$ref` in tool schemas, from 2025-11-25 on; inlined for older clients. */
  schemaStyle: SchemaStyle;
  /** tools/call `arguments` that were not an object, taken out of the request before the SDK's schema saw them. */
  nonObjectArguments?: { value: unknown };
};

export type McpServerDeps = { invoke: InvokeDeps; catalog: McpCatalog; approvals: ApprovalCodec };

type CallOutcome = CallToolResult | InputRequiredResult;

/**
 * One low-level SDK `Server` per HTTP request (stateless: any instance answers any request), for either era.
 * Not `McpServer`: its registerTool validates arguments with the SDK's own messages before our handler runs, which
 * would break parity with HTTP (a missing `confirm` is 422 confirmation_required, a bad field 400
 * invalid_request). Here every call goes through invokeTool, exactly like POST /api/v1/tools/*.
 */
export function createMcpServer(deps: McpServerDeps, scope: McpRequestScope, era: 'legacy' | 'modern'): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: SERVER_CAPABILITIES,
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: [...LEGACY_PROTOCOL_VERSIONS],
    jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
    // The anonymous list is the same for everyone; a key's list depends on its scopes.
    cacheHints: {
      'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: scope.principal ? 'private' : 'public' },
      'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
    },
    requestState: { verify: deps.approvals.verify },
    // 2025-era requests are stateless here: nothing could carry a server→client question, so they keep `confirm`.
    inputRequired: { legacyShim: false },
  });

  const visible = () => [...deps.catalog.values()].filter((e) => isVisibleTo(e.tool, scope.principal));
  const callTool = (name: string, args: unknown, meta: Record<string, unknown> | undefined, ctx: ServerContext) =>
    runTool(deps, scope, era, name, args, meta, ctx);

  if (scope.toolset === 'discovery') {
    const toolset = discoveryToolset({ visible, style: scope.schemaStyle, callTool });
    server.setRequestHandler('tools/list', () => ({ tools: toolset.definitions }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      if (!DISCOVERY_TOOL_NAMES.has(request.params.name)) throw unknownTool(request.params.name, scope);
      try {
        return await toolset.call(request.params.name, request.params.arguments ?? {}, request.params._meta, ctx);
      } catch (err) {
        return toolError(err, scope.instance, scope.log);
      }
    });
    return server;
  }

  server.setRequestHandler('tools/list', () => ({ tools: [...toolListFor(deps.catalog, scope.principal, scope.schemaStyle)] }));
  server.setRequestHandler('tools/call', (request, ctx) =>
    callTool(request.params.name, scope.nonObjectArguments ? scope.nonObjectArguments.value : request.params.arguments, request.params._meta, ctx),
  );
  return server;
}

/**
 * tools/call of one registry tool: unknown name → protocol error; otherwise a result, a failure as an isError
 * result, or (2026-07-28, destructive, no confirm) the approval question.
 */
async function runTool(
  deps: McpServerDeps,
  scope: McpRequestScope,
  era: 'legacy' | 'modern',
  name: string,
  args: unknown,
  meta: Record<string, unknown> | undefined,
  ctx: ServerContext,
): Promise<CallOutcome> {
  const entry = deps.catalog.get(name);
  if (!entry) throw unknownTool(name, scope);
  const { tool } = entry;
  // HTTP requires a body; MCP arguments are optional, and omitting them means "no fields" (null is not omitting).
  const body = args === undefined ? {} : args;
  if (era === 'modern' && isObject(body) && needsApproval(tool, body, ctx.mcpReq.envelope)) return approvalRound(deps, scope, tool, body, meta, ctx);
  return callTool(deps.invoke, scope, tool, body, meta);
}

/**
 * A call that needs no approval round: invokeTool once, its outcome (or failure, as problem JSON) as the tool
 * result. The SDK's tools/call handler and the direct path (direct-call.ts) both answer through it.
 */
export async function callTool(deps: InvokeDeps, scope: McpRequestScope, tool: Tool, body: unknown, meta: Record<string, unknown> | undefined): Promise<ToolCallResult> {
  try {
    const idempotencyKey = tool.write ? (idempotencyKeyOf(meta) ?? protocolIdempotencyKey(body)) : undefined;
    return toolResult(await invokeFor(deps, scope, tool)(body, idempotencyKey));
  } catch (err) {
    // A checkout protocol's tool fails in its protocol's error shape (the binding's result is a checkout or that).
    return tool.scope === 'checkout:agent' ? protocolToolError(err, scope.instance, scope.log) : toolError(err, scope.instance, scope.log);
  }
}

/** The approval round of a destructive call (approval.ts): the question, or the approved call run once. */
async function approvalRound(
  deps: McpServerDeps,
  scope: McpRequestScope,
  tool: Tool,
  body: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  ctx: ServerContext,
): Promise<CallOutcome> {
  const invoke = invokeFor(deps.invoke, scope, tool);
  try {
    const idempotencyKey = tool.write ? idempotencyKeyOf(meta) : undefined;
    const decision = decideApproval(tool, body, scope.principal, ctx);
    if (decision.kind === 'ask') {
      const preview = await invoke({ ...body, dryRun: true }, undefined);
      return await askApproval(deps.approvals, decision.state, 'changes' in preview ? preview.changes : []);
    }
    const approved = { tool, principal: scope.principal, decision, idempotencyKey: idempotencyKey ?? decision.idempotencyKey };
    return toolResult(await runApproved(deps.invoke.db, approved, invoke));
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    return toolError(err, scope.instance, scope.log);
  }
}

function invokeFor(deps: InvokeDeps, scope: McpRequestScope, tool: Tool) {
  return async (callBody: unknown, idempotencyKey: string | undefined): Promise<InvokeResult> => {
    if (tool.scope === 'checkout:agent') await scope.countPlatformCall();
    return invokeTool(deps, {
      tool, body: callBody, principal: scope.principal, requestId: scope.requestId, clientAddress: scope.clientAddress, log: scope.log, idempotencyKey,
      countToolCall: scope.countToolCall,
    });
  };
}

/** The MCP spec makes an unknown tool a protocol error (-32602); data still carries our problem. */
function unknownTool(name: string, scope: McpRequestScope): ProtocolError {
  const problem = toProblem(new AppError('unknown_tool', `There is no tool named "${name}".`), scope.instance);
  return new ProtocolError(ProtocolErrorCode.InvalidParams, problem.detail, problem);
}

/** The MCP counterpart of the Idempotency-Key header: `_meta.idempotencyKey` of tools/call. */
function idempotencyKeyOf(meta: Record<string, unknown> | undefined): string | undefined {
  const raw = meta?.idempotencyKey;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new AppError('invalid_idempotency_key', '_meta.idempotencyKey must be a string.');
  return parseIdempotencyKey(raw);
}

/** UCP's MCP binding carries the key in the arguments (`meta["idempotency-key"]`, docs/agentic-checkout.md). */
function protocolIdempotencyKey(body: unknown): string | undefined {
  const meta = isObject(body) ? body.meta : undefined;
  const raw = isObject(meta) ? meta['idempotency-key'] : undefined;
  return typeof raw === 'string' ? parseIdempotencyKey(raw) : undefined;
}
