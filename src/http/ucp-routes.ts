// UCP's REST binding (docs/agentic-checkout.md): the business profile at /.well-known/ucp and the checkout and
// order operations under /ucp. Each operation calls the same registry tool as the MCP binding (src/tools/ucp.ts)
// through invokeTool; this file only maps HTTP to the tool's input and the outcome to the protocol's status codes
// and error shape.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyError } from 'fastify';
import type { Config } from '../config.ts';
import { inTransaction } from '../db/client.ts';
import { AppError, toProblem, type ProblemCode } from '../errors.ts';
import { eventsOf } from '../events/outbox.ts';
import { paymentHandlers } from '../protocols/ucp/payment.ts';
import { profileOfHeader, platformOf } from '../protocols/ucp/platform.ts';
import { signingKeys } from '../protocols/ucp/signing.ts';
import { CAPABILITIES, errorCodeOfProblem, errorOf, severityOfProblem, UCP_VERSION } from '../protocols/ucp/wire.ts';
import type { Change, Tool } from '../registry/define-tool.ts';
import { parseIdempotencyKey, recordWrite } from '../registry/idempotency.ts';
import { invokeTool, type InvokeDeps } from '../registry/invoke-tool.ts';
import { changeOrderStatus, statusChangeEntry } from '../services/orders.ts';
import { baseUrlOf, originVary } from './base-url.ts';
import { fromFastifyError, problemInstance } from './problem.ts';
import type { Limiters } from './rate-limit.ts';
import { checkoutRateLimit, count, countHeader } from './request-guard.ts';

export const UCP_PREFIX = '/ucp';
export const UCP_PROFILE_PATH = '/.well-known/ucp';
const SPEC = 'https://ucp.dev/2026-04-08/specification/overview';

export type UcpRouteDeps = {
  deps: InvokeDeps;
  config: Config;
  tools: readonly Tool[];
  guard: (req: FastifyRequest) => Promise<void>;
  limiters: Limiters;
};

/** The business profile: the shopping service over REST and MCP, its capabilities, payment handlers and signing keys. */
export async function businessProfile(deps: InvokeDeps, base: string) {
  const keys = await signingKeys(deps.db, deps.secrets);
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        'dev.ucp.shopping': [
          { version: UCP_VERSION, spec: SPEC, transport: 'rest', endpoint: `${base}${UCP_PREFIX}`, schema: 'https://ucp.dev/2026-04-08/services/shopping/rest.openapi.json' },
          { version: UCP_VERSION, spec: SPEC, transport: 'mcp', endpoint: `${base}/api/mcp`, schema: 'https://ucp.dev/2026-04-08/services/shopping/mcp.openrpc.json' },
        ],
      },
      capabilities: CAPABILITIES,
      payment_handlers: paymentHandlers(deps.config),
    },
    signing_keys: keys.map((k) => k.publicJwk),
  };
}

/**
 * The REST binding's status for a problem where it differs from the service's own: an idempotency key reused with
 * another request is a 409; a checkout's content that cannot be served (a line the shop cannot sell, a completion of
 * what is not ready) is a 400, as the binding's status table has it (its 422 is a platform profile it cannot use).
 */
const UCP_STATUS: Partial<Record<ProblemCode, number>> = { idempotency_key_reused: 409, out_of_stock: 400, checkout_session_incomplete: 400 };

/**
 * UCP's error response; a 400 (the request cannot be served) repeats the problem's detail as `detail`, the one place
 * the conformance suite reads errors in the shape of its reference server's framework. The schema allows no such
 * field, so no other error carries it (docs/agentic-checkout.md, reading 16).
 */
function ucpError(err: unknown, instance: string, statuses: Partial<Record<ProblemCode, number>> = UCP_STATUS) {
  const fastify = err instanceof Error && 'code' in err ? fromFastifyError(err as FastifyError) : null;
  const problem = toProblem(fastify ?? err, instance);
  const status = statuses[problem.code] ?? problem.status;
  const error = errorOf(errorCodeOfProblem(problem.code), problem.detail, severityOfProblem(problem));
  return { status, body: status === 400 ? { ...error, detail: problem.detail } : error, headers: err instanceof AppError ? err.headers : undefined };
}

const ORDER_PATH = `${UCP_PREFIX}/orders/:id`;
/**
 * An order update (not in the REST binding, which only reads orders; reading 17) whose body breaks the order schema
 * is 422, as the conformance suite expects of it: the order entity cannot take it.
 */
const ORDER_UPDATE_STATUS: Partial<Record<ProblemCode, number>> = { ...UCP_STATUS, invalid_request: 422 };
const statusesOf = (req: FastifyRequest) => (req.method === 'PUT' && req.routeOptions.url === ORDER_PATH ? ORDER_UPDATE_STATUS : UCP_STATUS);

function idempotencyKey(req: FastifyRequest): string {
  if (countHeader(req, 'idempotency-key') > 1) throw new AppError('invalid_idempotency_key', 'Send exactly one Idempotency-Key header.');
  const key = parseIdempotencyKey(req.headers['idempotency-key']);
  if (key === undefined) throw new AppError('invalid_request', 'Idempotency-Key is required on every UCP POST and PUT.');
  return key;
}

/**
 * UCP lets a platform send its key as X-API-Key; it is the same credential as `Authorization: Bearer`, and becomes
 * that header (the guard reads the raw headers too) when the request has no Authorization of its own. A test
 * deployment for the conformance suite (which sends no credentials) names the key such requests act with
 * (UCP_CONFORMANCE_KEY, never in production).
 */
const apiKeyHeader = (config: Config) => async (req: FastifyRequest) => {
  const given = req.headers['x-api-key'];
  const key = typeof given === 'string' ? given : config.checkout.conformanceKey;
  if (key === undefined || countHeader(req, 'authorization') > 0) return;
  req.headers.authorization = `Bearer ${key}`;
  req.raw.rawHeaders.push('authorization', `Bearer ${key}`);
};

/**
 * A body-less POST (cancel, the shipping simulation) may still carry Content-Type: application/json, as clients set
 * it on every request: in the scope, an empty body there is no body. Any other body is parsed as everywhere.
 */
function acceptEmptyJsonBody(scope: FastifyInstance): void {
  const json = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length === 0) done(null, undefined);
    else json(req, text, done);
  });
}

const equalSecrets = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function registerUcpRoutes(app: FastifyInstance, opts: UcpRouteDeps): void {
  const { deps, config, limiters } = opts;
  const tool = (name: string) => {
    const found = opts.tools.find((t) => t.name === name);
    if (!found) throw new Error(`UCP tool ${name} is not registered`);
    return found;
  };

  app.get(UCP_PROFILE_PATH, async (req, reply) => {
    reply.header('Cache-Control', 'public, max-age=300').headers(originVary(config));
    return businessProfile(deps, baseUrlOf(req, config));
  });

  app.register(async (scope) => {
    scope.setErrorHandler((err, req, reply) => {
      const { status, body, headers } = ucpError(err, problemInstance(req), statusesOf(req));
      if (status >= 500) req.log.error({ err }, 'UCP request failed');
      if (headers) reply.headers(headers);
      return reply.code(status).type('application/json').send(body);
    });
    acceptEmptyJsonBody(scope);
    scope.addHook('onRequest', apiKeyHeader(config));
    scope.addHook('onRequest', opts.guard);
    scope.addHook('onRequest', checkoutRateLimit(limiters));

    const call = async (req: FastifyRequest, reply: FastifyReply, name: string, input: Record<string, unknown>, created = false) => {
      const profile = profileOfHeader(req.headers['ucp-agent']);
      const t = tool(name);
      // Fetched (and cached) before the write's transaction opens, so the handler's look-up finds it at hand.
      if (t.write) await platformOf(config, profile);
      // The key goes into the binding's metadata as over MCP: a payment handler names its own call to the PSP by it.
      const key = t.write ? idempotencyKey(req) : undefined;
      const { replayed, ...outcome } = await invokeTool(deps, {
        tool: t, body: { meta: { 'ucp-agent': { profile }, ...(key ? { 'idempotency-key': key } : {}) }, ...input }, principal: req.principal, requestId: req.id,
        clientAddress: req.ip, log: req.log, idempotencyKey: key, countToolCall: (n, l) => count(req, limiters.tool(n, l)),
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      const requestId = req.headers['request-id'];
      if (typeof requestId === 'string') reply.header('Request-Id', requestId);
      return reply.code(created ? 201 : 200).type('application/json').send(outcome.result);
    };
    const id = (req: FastifyRequest) => (req.params as { id: string }).id;
    const body = (req: FastifyRequest) => (req.body === undefined || req.body === null ? {} : req.body);

    scope.post(`${UCP_PREFIX}/checkout-sessions`, (req, reply) => call(req, reply, 'create_checkout', { checkout: body(req) }, true));
    scope.get(`${UCP_PREFIX}/checkout-sessions/:id`, (req, reply) => call(req, reply, 'get_checkout', { id: id(req) }));
    scope.put(`${UCP_PREFIX}/checkout-sessions/:id`, (req, reply) => call(req, reply, 'update_checkout', { id: id(req), checkout: body(req) }));
    scope.post(`${UCP_PREFIX}/checkout-sessions/:id/complete`, (req, reply) => call(req, reply, 'complete_checkout', { id: id(req), checkout: body(req) }));
    scope.post(`${UCP_PREFIX}/checkout-sessions/:id/cancel`, (req, reply) => call(req, reply, 'cancel_checkout', { id: id(req) }));
    scope.get(ORDER_PATH, (req, reply) => call(req, reply, 'get_order', { id: id(req) }));
    scope.put(ORDER_PATH, (req, reply) => call(req, reply, 'update_order', { id: id(req), order: body(req) }));
  });

  // The conformance suite's shipping trigger, for test deployments only (UCP_SIMULATION_SECRET, never in production):
  // ships an order placed from a UCP checkout the way orders.update_status would (paid, then shipped), audited, so
  // its order events go out to the platform like any real shipment's.
  const secret = config.checkout.simulationSecret;
  if (secret !== undefined) app.register(async (simulation) => {
    acceptEmptyJsonBody(simulation);
    simulation.post('/testing/simulate-shipping/:id', async (req, reply) => {
      const given = req.headers['simulation-secret'];
      if (typeof given !== 'string' || !equalSecrets(given, secret)) throw new AppError('insufficient_scope', 'Simulation-Secret is missing or wrong.');
      const orderId = (req.params as { id: string }).id;
      await inTransaction(deps.db, async (tx) => {
        const session = await tx.checkoutSession.findUnique({ where: { orderId } });
        if (!session) throw new AppError('not_found', `No order placed from a UCP checkout with id "${orderId}".`);
        const changes: Change[] = [];
        const order = await tx.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } });
        for (const status of order.status === 'pending_payment' || order.status === 'pending' ? (['paid', 'shipped'] as const) : (['shipped'] as const)) {
          const moved = await changeOrderStatus(tx, orderId, status, { email: config.email });
          changes.push(statusChangeEntry(moved));
        }
        await recordWrite(tx, {
          apiKeyId: null, grantId: null, clientAddress: req.ip, tool: 'testing.simulate_shipping', entries: changes,
          events: eventsOf(changes), idempotency: null, outcome: { status: 200, body: { ok: true, result: null } },
        });
      });
      return reply.code(200).send({ ok: true, orderId, status: 'shipped' });
    });
  });
}
