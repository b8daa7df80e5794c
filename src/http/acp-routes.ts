// ACP 2026-04-17's checkout REST API under /acp (docs/agentic-checkout.md, "ACP"). This file maps HTTP to the ACP
// operations (src/protocols/acp/operations.ts, run through invokeTool: one write path with audit, outbox and
// Idempotency-Key records) and every failure to the protocol's flat Error. Payment: the agent's SharedPaymentToken
// is charged at Stripe here, outside any transaction, before the completion places the order.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { isExpired, isFinal } from '../domain/checkout-session.ts';
import { AppError } from '../errors.ts';
import { AcpError, acpErrorOf } from '../protocols/acp/errors.ts';
import { acpOperations, completeOperation, ownerOf, publicBase, handlersOf } from '../protocols/acp/operations.ts';
import { ACP_VERSION, CancelRequest, CompleteRequest, CreateRequest, declinedMessage, parseBody, sessionOf, STRIPE_HANDLER_ID, UpdateRequest } from '../protocols/acp/wire.ts';
import type { Tool } from '../registry/define-tool.ts';
import { parseIdempotencyKey } from '../registry/idempotency.ts';
import { invokeTool, type InvokeDeps } from '../registry/invoke-tool.ts';
import { insufficientScope } from '../registry/scopes.ts';
import { findPriced, notReady, viewSession } from '../services/checkout-sessions.ts';
import { refundUnlessRetried } from '../services/agent-payments.ts';
import { chargeSharedToken, isSharedPaymentToken } from '../services/payments.ts';
import { loadSettings } from '../services/settings.ts';
import { fromFastifyError, problemInstance } from './problem.ts';
import type { Limiters } from './rate-limit.ts';
import { checkoutRateLimit, count, countHeader } from './request-guard.ts';

export const ACP_PREFIX = '/acp';

export type AcpRouteDeps = { deps: InvokeDeps; config: Config; guard: (req: FastifyRequest) => Promise<void>; limiters: Limiters };

const SUPPORTED = { supported_versions: [ACP_VERSION] };

/** API-Version is required and must be the version this service speaks (400 with the versions it supports). */
function checkVersion(req: FastifyRequest): void {
  const version = req.headers['api-version'];
  if (version === undefined) throw new AcpError(400, 'missing_api_version', `Send API-Version: ${ACP_VERSION}.`, undefined, SUPPORTED);
  if (version !== ACP_VERSION) throw new AcpError(400, 'unsupported_api_version', `API-Version ${String(version)} is not supported; this service speaks ${ACP_VERSION}.`, undefined, SUPPORTED);
}

/**
 * The request's Idempotency-Key, scoped to the endpoint it was sent to (the protocol scopes keys to the caller and
 * the endpoint path: the same key on another endpoint is another request).
 */
function idempotencyKeyOf(req: FastifyRequest): string {
  if (countHeader(req, 'idempotency-key') > 1) throw new AppError('invalid_idempotency_key', 'Send exactly one Idempotency-Key header.');
  const key = parseIdempotencyKey(req.headers['idempotency-key']);
  if (key === undefined) throw new AcpError(400, 'idempotency_key_required', 'Idempotency-Key header is required on all POST requests.');
  return `acp:${req.url.split('?')[0]}:${key}`;
}

/** The caller, who must hold checkout:agent before anything is charged. */
function platformOf(req: FastifyRequest) {
  if (!req.principal) throw new AppError('unauthorized', 'Send Authorization: Bearer <API key or OAuth token> with scope checkout:agent.', { 'WWW-Authenticate': 'Bearer realm="agent-api", scope="checkout:agent"' });
  if (!req.principal.scopes.has('checkout:agent')) throw insufficientScope(['checkout:agent'], 'This key lacks the scope checkout:agent the checkout protocols need.');
  return ownerOf({ principal: req.principal });
}

export function registerAcpRoutes(app: FastifyInstance, opts: AcpRouteDeps): void {
  const { deps, config, limiters } = opts;

  app.register(async (scope) => {
    scope.setErrorHandler((err, req, reply) => {
      const fastify = err instanceof Error && 'code' in err && !(err instanceof AppError) ? fromFastifyError(err as FastifyError) : null;
      const { status, headers, body } = acpErrorOf(fastify ?? err, problemInstance(req));
      if (status >= 500) req.log.error({ err }, 'ACP request failed');
      return reply.code(status).headers(headers).type('application/json').send(body);
    });
    scope.addHook('onRequest', opts.guard);
    scope.addHook('onRequest', checkoutRateLimit(limiters));
    scope.addHook('onRequest', async (req) => checkVersion(req));
    // Request-Id is echoed when sent; a POST's Idempotency-Key is echoed on its answer (the protocol's headers).
    scope.addHook('onSend', async (req, reply, payload) => {
      const requestId = req.headers['request-id'];
      if (typeof requestId === 'string') reply.header('Request-Id', requestId);
      const key = req.headers['idempotency-key'];
      if (req.method === 'POST' && typeof key === 'string') reply.header('Idempotency-Key', key);
      return payload;
    });

    const call = async (req: FastifyRequest, reply: FastifyReply, tool: Tool, body: Record<string, unknown>, status = 200) => {
      const { replayed, ...outcome } = await invokeTool(deps, {
        tool, body, principal: req.principal, requestId: req.id, clientAddress: req.ip, log: req.log,
        idempotencyKey: tool.write ? idempotencyKeyOf(req) : undefined, countToolCall: (n, l) => count(req, limiters.tool(n, l)),
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(status).type('application/json').send(outcome.result);
    };
    const id = (req: FastifyRequest) => (req.params as { id: string }).id;
    const bodyOf = (req: FastifyRequest): Record<string, unknown> => (req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? { ...req.body } : {});
    const posted = (req: FastifyRequest) => {
      idempotencyKeyOf(req);
      if (req.body !== undefined && (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body))) throw new AcpError(400, 'invalid', 'The body must be a JSON object.', '$');
      return bodyOf(req);
    };

    scope.post(`${ACP_PREFIX}/checkout_sessions`, async (req, reply) => {
      const body = posted(req);
      const request = parseBody(CreateRequest, body);
      if (request.currency) {
        const shop = (await loadSettings(deps.db)).currency;
        if (request.currency.toLowerCase() !== shop.toLowerCase()) throw new AcpError(400, 'invalid', `This shop sells in ${shop.toLowerCase()} only.`, '$.currency');
      }
      return call(req, reply, acpOperations.create, { body }, 201);
    });
    scope.get(`${ACP_PREFIX}/checkout_sessions/:id`, (req, reply) => call(req, reply, acpOperations.get, { id: id(req) }));
    scope.post(`${ACP_PREFIX}/checkout_sessions/:id`, async (req, reply) => {
      const body = posted(req);
      parseBody(UpdateRequest, body);
      return call(req, reply, acpOperations.update, { id: id(req), body });
    });
    scope.post(`${ACP_PREFIX}/checkout_sessions/:id/cancel`, async (req, reply) => {
      const body = posted(req);
      parseBody(CancelRequest, body);
      try {
        return await call(req, reply, acpOperations.cancel, { id: id(req), body });
      } catch (err) {
        // A completed or canceled session is not cancelable: the protocol answers 405.
        if (err instanceof AppError && err.code === 'checkout_session_closed') throw new AcpError(405, 'not_cancelable', err.message, undefined, {}, err.headers);
        throw err;
      }
    });
    scope.post(`${ACP_PREFIX}/checkout_sessions/:id/complete`, async (req, reply) => {
      const body = posted(req);
      const request = parseBody(CompleteRequest, body);
      const owner = platformOf(req);
      const key = idempotencyKeyOf(req);
      // The session and its prices, in one read.
      const { row, pricing } = await findPriced(deps.db, owner, id(req), 'acp');
      const base = publicBase(config);
      // A closed session is charged nothing: only the replay of the completion that closed it can answer.
      if (isFinal(row.status) || isExpired(row.expiresAt, new Date())) return call(req, reply, completeOperation(null), { id: row.id, body });

      const data = request.payment_data;
      const token = data.instrument?.credential.type === 'spt' ? data.instrument.credential.token : undefined;
      if (!config.payments.stripe || data.handler_id !== STRIPE_HANDLER_ID || token === undefined) {
        throw new AcpError(400, 'unsupported_payment_method',
          config.payments.stripe ? `Pay with handler ${STRIPE_HANDLER_ID} and a Stripe SharedPaymentToken (credential type spt).` : 'This shop takes no agent payments: no payment handler is configured.',
          '$.payment_data');
      }
      if (!isSharedPaymentToken(token)) throw new AcpError(400, 'invalid', 'The credential is not a SharedPaymentToken (spt_…).', '$.payment_data.instrument.credential.token');
      const view = await viewSession(deps.db, row, base, new Date(), pricing);
      // What the completion would refuse is answered before anything is charged (the buyer given here counts).
      const problem = notReady(view, (i) => Boolean(request.buyer) && i.path === 'buyer.email');
      if (problem) throw problem;
      const charge = await chargeSharedToken(config, {
        amount: view.totals.total, currency: view.currency, token, idempotencyKey: `${owner.keyId}:${key}`,
        metadata: { checkout_session_id: row.id, protocol: 'acp' },
      });
      if (!charge.paid) {
        // Declined: the session stays as it was, with the decline as a message (the protocol's example answer).
        return reply.code(200).type('application/json').send(sessionOf(view, { handlers: handlersOf(config), extraMessages: [declinedMessage(charge.message)] }));
      }
      try {
        return await call(req, reply, completeOperation({ intentId: charge.intentId, amount: view.totals.total }), { id: row.id, body });
      } catch (err) {
        // The order was not placed: the money goes back unless a retry can still use it.
        await refundUnlessRetried(config, charge.intentId, err, req.log);
        throw err;
      }
    });
  });
}
