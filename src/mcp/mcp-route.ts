import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  createMcpHandler,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Config } from '../config.ts';
import { insufficientScope } from '../registry/scopes.ts';
import type { McpDiscoveryDocuments } from '../http/discovery-routes.ts';
import { PATHS } from '../http/paths.ts';
import { problemInstance } from '../http/problem.ts';
import type { Limiters } from '../http/rate-limit.ts';
import { count, countBatch, type createRequestGuard } from '../http/request-guard.ts';
import type { Tool, ToolRateLimit } from '../registry/define-tool.ts';
import type { InvokeDeps } from '../registry/invoke-tool.ts';
import { lazyApprovalCodec } from './approval.ts';
import { callTool, createMcpServer, LATEST_LEGACY_VERSION, MCP_PROTOCOL_VERSIONS, type McpRequestScope } from './create-mcp-server.ts';
import { directAnswer, directCallOf, directListAnswer, directListOf } from './direct-call.ts';
import { buildMcpCatalogDocument, buildServerCard, SERVER_CARD_TYPE } from './server-card.ts';
import { isObject } from './is-object.ts';
import { mcpStateSecret } from './state-secret.ts';
import { buildMcpCatalog, type McpCatalog } from './tool-catalog.ts';

const ToolCallSchema = z.object({ method: z.literal('tools/call'), params: z.object({ name: z.string(), arguments: z.unknown().optional() }) });
/** The discovery toolset's meta-tool that calls another tool by name (src/mcp/discovery-toolset.ts). */
const DiscoveryCallSchema = z.object({ name: z.literal('tools.call'), arguments: z.object({ name: z.string() }) });

export type McpRouteOptions = {
  deps: InvokeDeps;
  tools: readonly Tool[];
  /** The same auth + rate-limit guard as the tool routes. */
  guard: ReturnType<typeof createRequestGuard>;
  /** Tools with their own rate limit count against the same limiters over MCP as over REST. */
  limiters: Limiters;
  /** The guard of the sign-in-only URL: the same, but no credentials is a 401. */
  adminGuard: ReturnType<typeof createRequestGuard>;
  config: Config;
};

/** Revisions whose tool schemas may use `$defs`/`$ref` (JSON Schema 2020-12 is their stated dialect). */
const SHARED_SCHEMA_FROM = '2025-11-25';

/**
 * MCP over Streamable HTTP at /api/mcp, both eras on one endpoint: the SDK's handler decides per request whether it
 * is a 2026-07-28 request (version, client info and capabilities in `_meta`) or a 2025-era one, and answers it with
 * a fresh server (stateless: any instance answers any request). In front of it, our own rules: Origin, the
 * protocol-version header, then the same key and rate-limit guard as every tool route. A plain tools/call that the
 * SDK would hand to our handler unchanged is answered by that handler directly (direct-call.ts, MCP_DIRECT_CALL).
 */
export function registerMcp(app: FastifyInstance, opts: McpRouteOptions): McpDiscoveryDocuments {
  const { deps, config, guard, limiters } = opts;
  const allowedOrigins = configuredOrigins(config);
  // Built on first use, not in buildApp: converting every schema takes ~0.5 s cold, which every test app would pay.
  let catalog: McpCatalog | undefined;
  const getCatalog = () => (catalog ??= buildMcpCatalog(opts.tools));
  const approvals = lazyApprovalCodec(() => mcpStateSecret(config, deps.db, deps.secrets));
  const serverFor = (scope: McpRequestScope, era: 'legacy' | 'modern') => createMcpServer({ invoke: deps, catalog: getCatalog(), approvals }, scope, era);

  // 2026-07-28: the SDK's handler builds the server per request from its web Request; this is how it finds the
  // Fastify request's scope.
  const scopes = new WeakMap<Request, McpRequestScope>();
  const modern = createMcpHandler(
    ({ requestInfo }) => {
      const scope = requestInfo && scopes.get(requestInfo);
      if (!scope) throw new Error('MCP request without its request scope');
      return serverFor(scope, 'modern');
    },
    { legacy: 'reject', onerror: (err) => app.log.debug({ err }, 'MCP request refused') },
  );
  app.addHook('onClose', () => modern.close());

  /**
   * 2025-era requests: the SDK's stateless Streamable HTTP transport, answering JSON (the SDK's own stateless
   * fallback always streams SSE, which costs a stream per call and buys nothing when there is nothing to stream).
   */
  async function serveLegacy(request: Request, parsedBody: unknown, scope: McpRequestScope): Promise<Response> {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await serverFor(scope, 'legacy').connect(transport);
    // Not closed afterwards: in JSON mode nothing is pending once the response exists, and closing builds an
    // error (with its stack trace) per call only to reject requests that cannot be pending.
    return transport.handleRequest(request, { parsedBody });
  }

  // Origin first (a hostile page gets nothing, not even a key lookup), then auth; the protocol version once the
  // body is read.
  const onRequest = [
    async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.headers.origin !== undefined && !isAllowedOrigin(req.headers.origin, req, allowedOrigins)) {
        return reply.code(403).send(jsonRpcError(-32000, 'Forbidden origin'));
      }
    },
  ];

  /** Per batch: the calls of each tool with its own limit that were counted before the batch ran (countBatchCalls). */
  const counted = new WeakMap<FastifyRequest, Map<string, number>>();

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const { body, nonObjectArguments } = liftNonObjectArguments(req.body);
    const scope: McpRequestScope = {
      principal: req.principal,
      requestId: req.id,
      clientAddress: req.ip,
      log: req.log,
      instance: problemInstance(req),
      countToolCall: async (name, limit) => {
        const ahead = counted.get(req);
        const left = ahead?.get(name) ?? 0;
        if (left > 0) ahead?.set(name, left - 1);
        else await count(req, limiters.tool(name, limit));
      },
      countPlatformCall: async () => {
        if (req.principal) await count(req, limiters.checkout);
      },
      toolset: toolsetOf(req),
      schemaStyle: schemaStyleOf(req),
      nonObjectArguments,
    };
    const direct = config.mcpDirectCall && scope.toolset === 'full';
    const call = direct ? directCallOf(req, body, nonObjectArguments, getCatalog()) : undefined;
    // The content type the SDK sends: Fastify adds a charset to a JSON string's, unless a serializer hands it over.
    if (call) return reply.code(200).header('content-type', 'application/json').serializer(asIs).send(directAnswer(call, await callTool(deps, scope, call.tool, call.args, call.meta)));
    const list = direct ? directListOf(req, body) : undefined;
    if (list) return reply.code(200).header('content-type', 'application/json').send(directListAnswer(list, getCatalog(), scope));
    const request = webRequestOf(req);
    let response: Response;
    if (!(await isModernRequest(req, request, body))) {
      const version = req.headers['mcp-protocol-version'];
      if (version !== undefined && (typeof version !== 'string' || !MCP_PROTOCOL_VERSIONS.includes(version))) {
        // The modern path answers this itself, listing the revisions server/discover names.
        const requested = String(version);
        const error = { code: ProtocolErrorCode.UnsupportedProtocolVersion, message: `Unsupported protocol version: ${requested}`, data: { supported: MCP_PROTOCOL_VERSIONS, requested } };
        return reply.code(400).send({ jsonrpc: '2.0', error, id: requestIdOf(body) });
      }
      response = await serveLegacy(request, body, scope);
    } else {
      scopes.set(request, scope);
      response = await modern.fetch(request, { parsedBody: body });
    }
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    return reply.send(Buffer.from(await response.arrayBuffer()));
  };
  // 401s carry resource_metadata (src/oauth/routes.ts adds it to every challenge on a protected URL).
  app.post(PATHS.mcp, { onRequest: [...onRequest, guard], preHandler: [stepUp, countBatchCalls] }, handle);
  // The same server for hosts that must sign in: its guard answers every unauthenticated request with 401.
  app.post(PATHS.mcpAdmin, { onRequest: [...onRequest, opts.adminGuard], preHandler: [stepUp, countBatchCalls] }, handle);

  /**
   * A batch (a JSON array of messages, 2025-03-26) counts as the requests it holds, before any of it runs: each
   * message against the pre-auth and key limits, and each tools/call of a tool with its own limit against that
   * limit, so 100 calls cost what 100 requests cost. A batch that does not fit is refused whole with 429; an
   * anonymous batch with 401.
   */
  async function countBatchCalls(req: FastifyRequest): Promise<void> {
    const body: unknown = req.body;
    if (!Array.isArray(body)) return;
    const calls = new Map<string, { limit: ToolRateLimit; n: number }>();
    for (const message of body) {
      const name = calledToolOf(message, toolsetOf(req));
      const tool = name === undefined ? undefined : getCatalog().get(name)?.tool;
      const limit = tool?.rateLimit;
      // Only calls that reach the tool's limit: invokeTool counts it after the scope check.
      if (!tool || !limit || !(tool.anonymous || req.principal?.scopes.has(tool.scope))) continue;
      calls.set(tool.name, { limit, n: (calls.get(tool.name)?.n ?? 0) + 1 });
    }
    await countBatch(req, limiters, body.length, [...calls].map(([name, { limit, n }]) => ({ limiter: limiters.tool(name, limit), units: n })));
    counted.set(req, new Map([...calls].map(([name, { n }]) => [name, n])));
  }

  /**
   * A signed-in OAuth client calling a tool outside its grant gets HTTP 403 insufficient_scope naming the scope,
   * which MCP hosts answer by asking the operator for more (step-up). API keys keep the in-protocol error result.
   */
  async function stepUp(req: FastifyRequest): Promise<void> {
    if (!req.principal?.grantId) return;
    const body: unknown = req.body;
    for (const message of Array.isArray(body) ? body : [body]) {
      const call = ToolCallSchema.safeParse(message);
      const tool = call.success ? getCatalog().get(call.data.params.name)?.tool : undefined;
      if (tool && !tool.anonymous && !req.principal.scopes.has(tool.scope)) {
        throw insufficientScope([tool.scope], `This grant lacks the scope ${tool.scope} required by ${tool.name}.`, true);
      }
    }
  }

  // Stateless in both eras: no SSE stream to open with GET and no session to end with DELETE.
  for (const [url, urlGuard] of [[PATHS.mcp, guard], [PATHS.mcpAdmin, opts.adminGuard]] as const) {
    app.route({
      method: ['GET', 'DELETE'],
      url,
      onRequest: [...onRequest, urlGuard],
      handler: async (_req, reply) => reply.code(405).header('Allow', 'POST').send(jsonRpcError(-32000, 'Method not allowed.')),
    });
  }

  return {
    serverCard: (baseUrl) => buildServerCard(baseUrl, getCatalog()),
    serverCardType: SERVER_CARD_TYPE,
    catalog: buildMcpCatalogDocument,
  };
}

/**
 * The web Request the SDK handler reads: method, URL and headers. The body is not copied: Fastify has parsed it
 * (with its own size limit and content-type rules) and it is handed over as `parsedBody`.
 */
function webRequestOf(req: FastifyRequest): Request {
  const headers = new Headers();
  const raw = req.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return new Request(`http://mcp.internal${req.url}`, { method: req.method, headers });
}

/**
 * A tools/call whose `arguments` is not an object ([1], "x", null, 42) would be refused by the SDK's schema with a
 * generic -32602 before any handler runs. Lifted out here and handed to invokeTool as sent, it gets the problem
 * HTTP gives a body that is not an object (400 invalid_body), as a tool result, like every other bad input.
 */
function liftNonObjectArguments(body: unknown): { body: unknown; nonObjectArguments?: { value: unknown } } {
  if (!isObject(body) || body.method !== 'tools/call' || !isObject(body.params) || !('arguments' in body.params)) return { body };
  const { arguments: value, ...params } = body.params;
  if (isObject(value)) return { body };
  return { body: { ...body, params }, nonObjectArguments: { value } };
}

/**
 * Whether the SDK's handler for 2026-07-28 answers this request. By the SDK's own rule (isLegacyRequest), a body
 * with the per-request `_meta` protocol version is modern and a request with no claim at all (no such `_meta`, no
 * MCP-Protocol-Version after the 2025 revisions) is 2025-era; the SDK's classification, a few hundred µs per call,
 * is asked only about the rest (a modern header without the envelope, which its modern path refuses).
 */
async function isModernRequest(req: FastifyRequest, request: Request, body: unknown): Promise<boolean> {
  const claimed = (Array.isArray(body) ? body : [body]).some(
    (message) => isObject(message) && isObject(message.params) && isObject(message.params._meta) && PROTOCOL_VERSION_META_KEY in message.params._meta,
  );
  if (claimed) return true;
  const version = req.headers['mcp-protocol-version'];
  return typeof version === 'string' && version > LATEST_LEGACY_VERSION && !(await isLegacyRequest(request, body));
}

function toolsetOf(req: FastifyRequest): McpRequestScope['toolset'] {
  return (req.query as { toolset?: string }).toolset === 'discovery' ? 'discovery' : 'full';
}

/** The registry tool a message calls, directly or through the discovery toolset's tools.call. */
function calledToolOf(message: unknown, toolset: McpRequestScope['toolset']): string | undefined {
  const call = ToolCallSchema.safeParse(message);
  if (!call.success) return undefined;
  if (toolset === 'full') return call.data.params.name;
  const meta = DiscoveryCallSchema.safeParse(call.data.params);
  return meta.success ? meta.data.arguments.name : undefined;
}

/** `$defs`/`$ref` for 2026-07-28 and 2025-11-25 clients; inlined schemas for older ones (and for initialize). */
function schemaStyleOf(req: FastifyRequest): 'shared' | 'inline' {
  const version = req.headers['mcp-protocol-version'];
  // Revision names are dates: later revisions sort after 2025-11-25.
  return typeof version === 'string' && version >= SHARED_SCHEMA_FROM ? 'shared' : 'inline';
}

/** The serializer of a body that is already JSON text. */
const asIs = (payload: string) => payload;

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** The id an error answer echoes: the request's, when the body is one request with a usable id. */
function requestIdOf(body: unknown): string | number | null {
  return isObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
}

/** The origins of ALLOWED_ORIGINS and PUBLIC_BASE_URL, normalised once per app. */
function configuredOrigins(config: Config): ReadonlySet<string | null> {
  return new Set([...config.allowedOrigins, ...(config.publicBaseUrl ? [config.publicBaseUrl] : [])].map(originOf));
}

/**
 * MCP's transport rules require validating Origin against DNS rebinding. Allowed: PUBLIC_BASE_URL's origin,
 * ALLOWED_ORIGINS, and the request's own Host-derived origin only when that host is an IP literal or localhost —
 * a DNS name in Host proves nothing, since a rebinding attacker controls both it and Origin.
 */
function isAllowedOrigin(origin: string, req: FastifyRequest, configured: ReadonlySet<string | null>): boolean {
  const normalized = originOf(origin);
  if (normalized === null) return false;
  if (configured.has(normalized)) return true;
  const hostname = req.hostname.replace(/^\[|\]$/g, '');
  const rebindingSafe = isIP(hostname) !== 0 || hostname === 'localhost';
  return rebindingSafe && normalized === originOf(`${req.protocol}://${req.host}`);
}

function originOf(value: string): string | null {
  try {
    const { origin } = new URL(value);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}
