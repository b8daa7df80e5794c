import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { baseUrlOf } from '../http/base-url.ts';
import { problemInstance } from '../http/problem.ts';
import type { createRequestGuard } from '../http/request-guard.ts';
import type { Tool } from '../registry/define-tool.ts';
import type { InvokeDeps } from '../registry/invoke-tool.ts';
import { buildMcpCatalog, createMcpServer, MCP_PROTOCOL_VERSIONS, type McpCatalog } from './create-mcp-server.ts';
import { isRequest, JsonExchangeTransport } from './json-exchange-transport.ts';
import { MCP_ADMIN_PATH } from '../oauth/resources.ts';
import { buildServerCard, MCP_PATH, SERVER_CARD_PATHS } from './server-card.ts';

const ToolCallSchema = z.object({ method: z.literal('tools/call'), params: z.object({ name: z.string() }) });

export type McpRouteOptions = {
  deps: InvokeDeps;
  tools: readonly Tool[];
  /** The same auth + rate-limit guard as the tool routes. */
  guard: ReturnType<typeof createRequestGuard>;
  /** The guard of the sign-in-only URL: the same, but no credentials is a 401. */
  adminGuard: ReturnType<typeof createRequestGuard>;
  config: Config;
};

/** Discovery documents are public, cacheable and readable from any browser origin (hardening.md §1.5). */
const DISCOVERY_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET',
  'Access-Control-Allow-Headers': 'Content-Type',
  'Cache-Control': 'public, max-age=3600',
};

/**
 * MCP over Streamable HTTP at /api/mcp, stateless: each POST gets a fresh server and transport, so any instance
 * answers any request. Also serves the server card (two paths) and the RFC 9728 protected-resource metadata.
 */
export function registerMcp(app: FastifyInstance, opts: McpRouteOptions): void {
  const { deps, config, guard } = opts;
  const allowedOrigins = configuredOrigins(config);
  // Built on first use, not in buildApp: converting every schema takes ~0.5 s cold, which every test app would pay.
  let catalog: McpCatalog | undefined;
  const getCatalog = () => (catalog ??= buildMcpCatalog(opts.tools));

  // Origin first (a hostile page gets nothing, not even a key lookup), then the protocol version, then auth.
  const onRequest = [
    async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.headers.origin !== undefined && !isAllowedOrigin(req.headers.origin, req, allowedOrigins)) {
        return reply.code(403).send(jsonRpcError(-32000, 'Forbidden origin'));
      }
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const version = req.headers['mcp-protocol-version'];
      if (version !== undefined && (typeof version !== 'string' || !MCP_PROTOCOL_VERSIONS.includes(version))) {
        return reply.code(400).send(jsonRpcError(-32000, `Bad Request: unsupported MCP-Protocol-Version (supported: ${MCP_PROTOCOL_VERSIONS.join(', ')})`));
      }
    },
  ];

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const read = readMessages(req.headers.accept, req.body);
    if ('status' in read) return reply.code(read.status).send(jsonRpcError(read.code, read.message));
    const server = createMcpServer(deps, getCatalog(), { principal: req.principal, requestId: req.id, log: req.log, instance: problemInstance(req) });
    const transport = new JsonExchangeTransport();
    await server.connect(transport);
    // Not closed afterwards: a stateless server holds nothing once its responses are out, and Protocol's close
    // builds an McpError (with a stack trace) per call just to reject requests that cannot be pending.
    const responses = await transport.exchange(read.messages);
    if (responses.length === 0) return reply.code(202).send();
    // JSON, not SSE: a stateless server has nothing to stream. A batch is answered with an array (JSON-RPC 2.0 §6).
    return reply.type('application/json; charset=utf-8').send(read.batch ? responses : responses[0]);
  };
  app.post(MCP_PATH, { onRequest: [...onRequest, guard], preHandler: stepUp }, handler);
  // The same server for hosts that must sign in: its guard answers every unauthenticated request with 401.
  app.post(MCP_ADMIN_PATH, { onRequest: [...onRequest, opts.adminGuard], preHandler: stepUp }, handler);

  /**
   * A signed-in OAuth client calling a tool outside its grant gets HTTP 403 insufficient_scope naming the scope,
   * which MCP hosts answer by asking the operator for more (step-up). API keys keep the in-protocol error result.
   */
  async function stepUp(req: FastifyRequest): Promise<void> {
    if (!req.principal?.grantId) return;
    const body: unknown = req.body;
    for (const message of Array.isArray(body) ? body : [body]) {
      const call = ToolCallSchema.safeParse(message);
      const tool = call.success ? opts.tools.find((t) => t.name === call.data.params.name) : undefined;
      if (tool && !tool.anonymous && !req.principal.scopes.has(tool.scope)) {
        throw new AppError('insufficient_scope', `This grant lacks the scope ${tool.scope} required by ${tool.name}.`, {
          'WWW-Authenticate': `Bearer realm="agent-api", error="insufficient_scope", scope="${tool.scope}"`,
        });
      }
    }
  }

  // Stateless: no SSE stream to open with GET and no session to end with DELETE.
  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    handler: async (_req, reply) =>
      reply.code(405).header('Allow', 'POST').send(jsonRpcError(-32000, 'Method not allowed: this stateless server only takes POST.')),
  });
  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_ADMIN_PATH,
    onRequest: opts.adminGuard,
    handler: async (_req, reply) =>
      reply.code(405).header('Allow', 'POST').send(jsonRpcError(-32000, 'Method not allowed: this stateless server only takes POST.')),
  });

  for (const path of SERVER_CARD_PATHS) {
    app.get(path, async (req, reply) =>
      // Serialized here (not by Fastify) so both paths answer the very same bytes.
      reply.headers(DISCOVERY_HEADERS).type('application/json; charset=utf-8').send(JSON.stringify(buildServerCard(baseUrlOf(req, config), getCatalog()))),
    );
  }
}

type ReadMessages = { messages: JSONRPCMessage[]; batch: boolean } | { status: number; code: number; message: string };

/**
 * The HTTP rules of a Streamable HTTP POST, as the SDK's transport applies them (same statuses and JSON-RPC codes):
 * the client must accept both JSON and SSE, the body is one JSON-RPC message or a batch of at most 100, and an
 * initialize request comes alone. Body framing (content type, size, JSON syntax) is Fastify's, as for every route.
 */
function readMessages(accept: string | undefined, body: unknown): ReadMessages {
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return { status: 406, code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' };
  }
  const batch = Array.isArray(body);
  // JSON-RPC 2.0 §6: an empty array is an invalid request, not an empty batch.
  if (batch && (body.length === 0 || body.length > MAX_BATCH_SIZE)) {
    return { status: 400, code: ErrorCode.InvalidRequest, message: `Invalid Request: a batch holds 1 to ${MAX_BATCH_SIZE} messages` };
  }
  const parsed = (batch ? body : [body]).map((m) => JSONRPCMessageSchema.safeParse(m));
  if (parsed.some((p) => !p.success)) {
    return { status: 400, code: ErrorCode.ParseError, message: 'Parse error: Invalid JSON-RPC message' };
  }
  const messages = parsed.map((p) => p.data as JSONRPCMessage);
  if (messages.length > 1 && messages.some((m) => isRequest(m) && m.method === 'initialize')) {
    return { status: 400, code: ErrorCode.InvalidRequest, message: 'Invalid Request: Only one initialization request is allowed' };
  }
  return { messages, batch };
}

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
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
