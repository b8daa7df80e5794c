import type { FastifyRequest } from 'fastify';
import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  type Tool as McpToolDefinition,
} from '@modelcontextprotocol/server';
import { countHeader } from '../http/request-guard.ts';
import type { Tool } from '../registry/define-tool.ts';
import { needsApproval } from './approval.ts';
import { LIST_TTL_MS, MCP_PROTOCOL_VERSIONS, MCP_SERVER_INFO, MODERN_PROTOCOL_VERSION, type McpRequestScope } from './create-mcp-server.ts';
import { isObject } from './is-object.ts';
import { toolListFor, type McpCatalog } from './tool-catalog.ts';
import { STRUCTURED_JSON, type ToolCallResult } from './tool-result.ts';

/**
 * The direct path for `tools/call` and `tools/list` (docs/agent-surfaces.md "Speed"): the SDK builds a Server and a transport per
 * request, parses the message a dozen times and serialises the result twice, which costs more than most tool calls
 * themselves. A request this module has proved to be exactly a well-formed single call of a listed tool, which the
 * SDK would hand to our tools/call handler unchanged, is answered here with the same handler (callTool) and the same
 * bytes the SDK would send. Anything it is not sure of — every other method, batches, notifications, approval rounds
 * and their answers, an envelope or header the SDK would refuse or treat specially — goes to the SDK, which stays the
 * reference: test/mcp/direct-call.differential.test.ts sends generated requests to both and compares the answers.
 */

type Era = 'legacy' | 'modern';

/** A call the direct path answers: the tool, its arguments (omitted: {}) and the request's `_meta`. */
export type DirectCall = { id: string | number; era: Era; tool: Tool; args: unknown; meta: Record<string, unknown> | undefined };

/** A tools/list the direct path answers: its id and era (the list itself depends on the caller only). */
export type DirectList = { id: string | number; era: Era };

const TOP_LEVEL_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);
/**
 * `_meta` keys whose handling by the SDK is nothing but passing them to our handler. Any other key (a progress token,
 * a log level that may turn the answer into an event stream, trace context, task metadata) goes to the SDK.
 */
const LEGACY_META_KEYS = new Set(['idempotencyKey']);
const MODERN_META_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, 'idempotencyKey']);
/** The 2025-era revisions: what the stateless transport accepts in MCP-Protocol-Version. */
const LEGACY_VERSIONS = new Set(MCP_PROTOCOL_VERSIONS.filter((v) => v !== MODERN_PROTOCOL_VERSION));

/**
 * The call in this request when the direct path answers it exactly as the SDK would, else undefined. `body` is the
 * request body with non-object `arguments` lifted out (mcp-route.ts), `lifted` that value.
 */
export function directCallOf(req: FastifyRequest, body: unknown, lifted: { value: unknown } | undefined, catalog: McpCatalog): DirectCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call' || !hasOnlyKeys(body, TOP_LEVEL_KEYS)) return undefined;
  const { id, params } = body;
  if (!isRequestId(id)) return undefined;
  if (!isObject(params) || !hasOnlyKeys(params, PARAMS_KEYS) || typeof params.name !== 'string') return undefined;
  const entry = catalog.get(params.name);
  if (!entry || (params.arguments !== undefined && !isObject(params.arguments))) return undefined;
  const meta = params._meta;
  if (meta !== undefined && !isObject(meta)) return undefined;
  const contentType = soleHeader(req, 'content-type');
  if (contentType === null || !isJsonContentType(contentType ?? null)) return undefined;
  const era = eraOf(req, 'tools/call', params.name, meta);
  if (!era) return undefined;
  // Omitted arguments mean "no fields", as in the SDK's handler (runTool).
  const args = lifted ? lifted.value : (params.arguments ?? {});
  const call: DirectCall = { id, era, tool: entry.tool, args, meta };
  // A destructive call the person at the client is to approve is a multi round-trip exchange: the SDK's.
  if (era === 'modern' && isObject(args) && needsApproval(entry.tool, args, meta)) return undefined;
  return call;
}

/**
 * The tools/list in this request when the direct path answers it exactly as the SDK would, else undefined: no params
 * but `_meta` (a cursor goes to the SDK, which checks it), the same header rules as a call, and no Mcp-Name.
 */
export function directListOf(req: FastifyRequest, body: unknown): DirectList | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/list' || !hasOnlyKeys(body, TOP_LEVEL_KEYS)) return undefined;
  const { id, params } = body;
  if (!isRequestId(id) || (params !== undefined && (!isObject(params) || !hasOnlyKeys(params, LIST_PARAMS_KEYS)))) return undefined;
  const meta = params?._meta;
  if (meta !== undefined && !isObject(meta)) return undefined;
  const contentType = soleHeader(req, 'content-type');
  if (contentType === null || !isJsonContentType(contentType ?? null) || req.headers['mcp-name'] !== undefined) return undefined;
  const era = eraOf(req, 'tools/list', undefined, meta);
  return era && { id, era };
}

const LIST_PARAMS_KEYS = new Set(['_meta']);

function eraOf(req: FastifyRequest, method: 'tools/call' | 'tools/list', name: string | undefined, meta: Record<string, unknown> | undefined): Era | undefined {
  return meta !== undefined && PROTOCOL_VERSION_META_KEY in meta ? modernRequest(req, method, name, meta) : legacyCall(req, meta);
}

/**
 * 2025 era: what the SDK's stateless transport checks of a POST (Accept naming both JSON and event streams, a
 * served revision or none in MCP-Protocol-Version). A `_meta` with more than an idempotency key goes to the SDK.
 */
function legacyCall(req: FastifyRequest, meta: Record<string, unknown> | undefined): 'legacy' | undefined {
  if (meta !== undefined && !hasOnlyKeys(meta, LEGACY_META_KEYS)) return undefined;
  const accept = soleHeader(req, 'accept');
  if (!accept || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const version = soleHeader(req, 'mcp-protocol-version');
  if (version === null || (version !== undefined && !LEGACY_VERSIONS.has(version))) return undefined;
  return 'legacy';
}

/**
 * 2026-07-28: the SDK's own classification (envelope valid, header and body versions and Mcp-Method agreeing) must
 * route it to the modern path for this revision, and the standard headers it then requires must be there:
 * MCP-Protocol-Version, Mcp-Method, and for a call Mcp-Name naming the tool as sent (no encoded form).
 */
function modernRequest(req: FastifyRequest, method: 'tools/call' | 'tools/list', name: string | undefined, meta: Record<string, unknown>): 'modern' | undefined {
  if (!hasOnlyKeys(meta, MODERN_META_KEYS)) return undefined;
  const protocolVersionHeader = soleHeader(req, 'mcp-protocol-version');
  const mcpMethodHeader = soleHeader(req, 'mcp-method');
  if (protocolVersionHeader !== MODERN_PROTOCOL_VERSION || mcpMethodHeader !== method) return undefined;
  if (name !== undefined && soleHeader(req, 'mcp-name') !== name) return undefined;
  return isModernEnvelope(method, meta) ? 'modern' : undefined;
}

/** The classifier's verdicts by envelope JSON: a client sends the same envelope with every call. */
const envelopeVerdicts = new Map<string, boolean>();
const MAX_VERDICTS = 256;
/** Longer envelopes are classified every time rather than kept. */
const MAX_VERDICT_KEY = 2048;

/**
 * Whether the SDK's classifier routes a tools/call with this `_meta` and the standard headers checked above to the
 * 2026-07-28 path. Its verdict on such a request depends on nothing but the envelope: the rest of the body has the
 * exact shape checked in directCallOf, the headers equal the body, and `idempotencyKey` is a key its loose envelope
 * schema passes through. So it is asked about a stand-in request with this envelope, once per envelope.
 */
function isModernEnvelope(method: 'tools/call' | 'tools/list', meta: Record<string, unknown>): boolean {
  const { idempotencyKey: _passedThrough, ...envelope } = meta;
  const key = `${method} ${JSON.stringify(envelope)}`;
  const known = envelopeVerdicts.get(key);
  if (known !== undefined) return known;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: MODERN_PROTOCOL_VERSION,
    mcpMethodHeader: method,
    body: { jsonrpc: '2.0', id: 0, method, params: { ...(method === 'tools/call' ? { name: 'tool' } : {}), _meta: envelope } },
  });
  const verdict = route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === MODERN_PROTOCOL_VERSION;
  if (key.length <= MAX_VERDICT_KEY) {
    if (envelopeVerdicts.size >= MAX_VERDICTS) envelopeVerdicts.clear();
    envelopeVerdicts.set(key, verdict);
  }
  return verdict;
}

/** `_meta` of every 2026-07-28 result without its own: the server's identity. */
const SERVER_META_JSON = JSON.stringify({ [SERVER_INFO_META_KEY]: MCP_SERVER_INFO });

/**
 * The JSON-RPC answer, byte for byte what the SDK sends: its result schema puts `_meta` first and `content`,
 * `structuredContent`, `isError` after; on 2026-07-28 its encoder then adds `resultType` and the server's identity
 * in `_meta` (after `resultType` when the result had no `_meta`). Written by hand so that structuredContent is not
 * serialised again: its JSON is the text block's (toolResult).
 */
export function directAnswer(call: DirectCall, result: ToolCallResult): string {
  const { _meta: meta, content, structuredContent, isError } = result;
  const modern = call.era === 'modern';
  const parts: string[] = [];
  if (meta !== undefined) parts.push(`"_meta":${JSON.stringify(modern ? { ...meta, [SERVER_INFO_META_KEY]: MCP_SERVER_INFO } : meta)}`);
  parts.push(`"content":${JSON.stringify(content)}`);
  if (structuredContent !== undefined) parts.push(`"structuredContent":${result[STRUCTURED_JSON] ?? JSON.stringify(structuredContent)}`);
  if (isError !== undefined) parts.push(`"isError":${JSON.stringify(isError)}`);
  if (modern) parts.push('"resultType":"complete"');
  if (modern && meta === undefined) parts.push(`"_meta":${SERVER_META_JSON}`);
  return `{"result":{${parts.join(',')}},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
}

/**
 * Each tools/list's `tools` as UTF-8 bytes, once per list (toolListFor keeps one list per scope set and schema
 * style). Kept encoded because the list is ~55 KB with non-ASCII text: written as a string, every answer was
 * transcoded to UTF-8 again (`writeUtf8String`, 13 % of the service's CPU under a tools/list load).
 */
const listBytes = new WeakMap<readonly McpToolDefinition[], Buffer>();

/**
 * The SDK's tools/list answer, byte for byte: on 2026-07-28 its encoder adds `resultType`, the cache hints
 * configured in createMcpServer and the server's identity. The tools' bytes are kept per list, so a list costs
 * one lookup and a copy.
 */
export function directListAnswer(list: DirectList, catalog: McpCatalog, scope: Pick<McpRequestScope, 'principal' | 'schemaStyle'>): Buffer {
  const tools = toolListFor(catalog, scope.principal, scope.schemaStyle);
  let bytes = listBytes.get(tools);
  if (bytes === undefined) listBytes.set(tools, (bytes = Buffer.from(JSON.stringify(tools))));
  const modern = list.era === 'modern'
    ? `,"resultType":"complete","ttlMs":${LIST_TTL_MS},"cacheScope":"${scope.principal ? 'private' : 'public'}","_meta":${SERVER_META_JSON}`
    : '';
  return Buffer.concat([Buffer.from('{"result":{"tools":'), bytes, Buffer.from(`${modern}},"jsonrpc":"2.0","id":${JSON.stringify(list.id)}}`)]);
}

/** The SDK's JSON-RPC request id: a string or an integer (its zod schema's int() is the safe-integer range). */
function isRequestId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/** A header sent once (its value), not at all (undefined), or more than once (null: the SDK's, which joins them). */
function soleHeader(req: FastifyRequest, name: string): string | undefined | null {
  const value = req.headers[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' && countHeader(req, name) === 1 ? value : null;
}
