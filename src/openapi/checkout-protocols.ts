// The OpenAPI 3.1 document of the agentic checkout protocols (docs/agentic-checkout.md): ACP's and UCP's REST
// operations as this service serves them, one tag per protocol. It is a document of its own, linked from the API
// catalog beside /openapi.json: the protocols' names, headers and error shapes are theirs, not the tool API's.
// Written by `npm run openapi` to openapi/checkout.json; test/openapi/checkout-protocols.test.ts keeps it current
// and checks that every operation is a route of the app.
import { z } from 'zod';
import { ACP_VERSION, CancelRequest, CompleteRequest, CreateRequest, UpdateRequest } from '../protocols/acp/wire.ts';
import { UCP_VERSION } from '../protocols/ucp/wire.ts';

type Json = Record<string, unknown>;

const ACP_SPEC = 'https://github.com/agentic-commerce-protocol/agentic-commerce-protocol/tree/main/spec/2026-04-17';
const UCP_SCHEMAS = `https://ucp.dev/${UCP_VERSION}/schemas/shopping`;

/** A request schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without its own `$schema`. */
function schemaOf(schema: z.ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
}

const header = (name: string, description: string, required = false, schema: Json = { type: 'string' }): Json => ({ name, in: 'header', required, description, schema });
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const PARAMETERS: Record<string, Json> = {
  AcpVersion: header('API-Version', `The ACP version the platform speaks; this service speaks ${ACP_VERSION} (400 missing_api_version / unsupported_api_version otherwise).`, true, { type: 'string', enum: [ACP_VERSION] }),
  AcpIdempotencyKey: header('Idempotency-Key', 'Required on every POST (400 idempotency_key_required); the same key with another body is 422 idempotency_conflict, while the first runs 409 idempotency_in_flight. Echoed.', true, { type: 'string', minLength: 1, maxLength: 255 }),
  RequestId: header('Request-Id', 'Echoed on the answer.'),
  AcpSignature: header('Signature', 'Recommended by ACP; its algorithm is agreed out of band, so it is not verified (the Bearer credential authenticates the platform).'),
  AcpTimestamp: header('Timestamp', 'RFC 3339; sent with Signature, not verified.', false, { type: 'string', format: 'date-time' }),
  UcpAgent: header('UCP-Agent', 'The platform\'s profile: `profile="https://…"` (RFC 8941 dictionary). Required.', true),
  UcpIdempotencyKey: header('Idempotency-Key', 'Required on every POST and PUT; the same key with another request is 409 idempotency_conflict.', true, { type: 'string', minLength: 1, maxLength: 255 }),
  AcpSessionId: { name: 'checkout_session_id', in: 'path', required: true, description: 'The session id (cs_…).', schema: { type: 'string' } },
  UcpSessionId: { name: 'id', in: 'path', required: true, description: 'The checkout id (chk_…).', schema: { type: 'string' } },
  UcpOrderId: { name: 'id', in: 'path', required: true, description: 'The order id.', schema: { type: 'string' } },
};

const SCHEMAS: Record<string, Json> = {
  AcpError: {
    type: 'object',
    description: 'ACP’s flat Error.',
    required: ['type', 'code', 'message'],
    properties: {
      type: { type: 'string', enum: ['invalid_request', 'processing_error', 'service_unavailable'] },
      code: { type: 'string' },
      message: { type: 'string' },
      param: { type: 'string', description: 'RFC 9535 JSONPath of the offending field.' },
      supported_versions: { type: 'array', items: { type: 'string' } },
    },
  },
  AcpCheckoutSession: {
    type: 'object',
    description: `ACP CheckoutSession (with \`order\` once completed), as ACP ${ACP_VERSION}’s JSON Schema defines it.`,
    externalDocs: { url: `${ACP_SPEC}/json-schema/schema.agentic_checkout.json` },
    required: ['id', 'status', 'currency', 'line_items', 'totals'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string', description: 'not_ready_for_payment, ready_for_payment, completed, canceled, or expired (docs/agentic-checkout.md).' },
      currency: { type: 'string' },
      line_items: { type: 'array', items: { type: 'object' } },
      totals: { type: 'array', items: { type: 'object' } },
      order: { type: 'object', description: 'Once completed: the order (id, checkout_session_id, permalink_url, status).' },
    },
  },
  UcpErrorResponse: {
    type: 'object',
    description: 'UCP’s error response, with `detail` (the first message’s content again, for clients reading the conformance suite’s error shape; docs/agentic-checkout.md, reading 16).',
    externalDocs: { url: `${UCP_SCHEMAS}/types/error_response.json` },
    required: ['ucp', 'messages'],
    properties: { ucp: { type: 'object' }, messages: { type: 'array', items: { type: 'object' } }, detail: { type: 'string' } },
  },
  UcpCheckout: { type: 'object', description: `UCP ${UCP_VERSION} checkout.`, externalDocs: { url: `${UCP_SCHEMAS}/checkout.json` } },
  UcpOrder: { type: 'object', description: `UCP ${UCP_VERSION} order.`, externalDocs: { url: `${UCP_SCHEMAS}/order.json` } },
};

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'string' } } };

/** The error statuses every operation of a protocol can answer, in its own shape. */
function errors(schema: string, statuses: readonly number[]): Json {
  const content = { 'application/json': { schema: ref('schemas', schema) } };
  const describe: Record<number, string> = {
    400: 'Bad request: a header or the body does not fit; over UCP also a line the shop cannot sell, or completing a checkout that is not ready.', 401: 'No or an unknown credential.', 403: 'The key lacks the scope (checkout:agent; orders:write to update a UCP order).',
    402: 'The payment was declined.', 404: 'No such session of this platform.', 405: 'Not cancelable (completed or canceled already).', 409: 'The same Idempotency-Key is still running, or a conflict.',
    422: 'The session cannot do this now (closed, incomplete, out of stock, idempotency conflict).', 429: 'Rate limited (per platform key).',
  };
  return Object.fromEntries(statuses.map((s) => [String(s), { description: describe[s], content, ...(s === 429 || s === 409 ? { headers: RETRY_AFTER } : {}) }]));
}

type Op = { id: string; summary: string; params: string[]; body?: Json; ok: string; okStatus?: number; extraErrors?: number[]; scope?: string };

function operation(tag: 'acp' | 'ucp', op: Op): Json {
  const common = [400, 401, 403, 404, 429];
  const errorShape = tag === 'acp' ? 'AcpError' : 'UcpErrorResponse';
  return {
    tags: [tag],
    operationId: op.id,
    summary: op.summary,
    security: [{ bearerAuth: [op.scope ?? 'checkout:agent'] }],
    parameters: op.params.map((p) => ref('parameters', p)),
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: op.body } } } } : {}),
    responses: {
      [String(op.okStatus ?? 200)]: { description: 'The session (or order) as it stands.', content: { 'application/json': { schema: ref('schemas', op.ok) } } },
      ...errors(errorShape, [...common, ...(op.extraErrors ?? [])].sort()),
    },
  };
}

const ACP_POST = ['AcpVersion', 'AcpIdempotencyKey', 'RequestId', 'AcpSignature', 'AcpTimestamp'];
const UCP_WRITE = ['UcpAgent', 'UcpIdempotencyKey', 'RequestId'];
const ucpBody = (name: string) => ({ type: 'object', description: `UCP ${UCP_VERSION} ${name}.`, externalDocs: { url: `${UCP_SCHEMAS}/checkout.json` } });

/** The document, served with the caller's origin as its server (like /openapi.json). */
export function buildCheckoutDocument(): Json {
  const acpSession = '/acp/checkout_sessions/{checkout_session_id}';
  const ucpSession = '/ucp/checkout-sessions/{id}';
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent API: agentic checkout protocols',
      version: '1.0.0',
      description: `Checkout sessions for shopping platforms: ACP ${ACP_VERSION} under /acp and UCP ${UCP_VERSION} under /ucp (UCP's profile: /.well-known/ucp). Both take an API key with scope checkout:agent; see docs/agentic-checkout.md.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The origin this document is served from.' }],
    tags: [
      { name: 'acp', description: `Agentic Commerce Protocol ${ACP_VERSION} (OpenAI, Stripe): checkout sessions paid with a Stripe SharedPaymentToken; order events to the platform's webhook (Merchant-Signature).`, externalDocs: { url: ACP_SPEC } },
      { name: 'ucp', description: `Universal Commerce Protocol ${UCP_VERSION}: checkout sessions and orders over REST (the MCP binding is on /api/mcp); order webhooks signed per RFC 9421.`, externalDocs: { url: `https://ucp.dev/${UCP_VERSION}/specification/overview` } },
    ],
    paths: {
      '/acp/checkout_sessions': {
        post: operation('acp', { id: 'acp.createCheckoutSession', summary: 'Create a checkout session', params: ACP_POST, body: schemaOf(CreateRequest), ok: 'AcpCheckoutSession', okStatus: 201, extraErrors: [409, 422] }),
      },
      [acpSession]: {
        get: operation('acp', { id: 'acp.getCheckoutSession', summary: 'Retrieve a checkout session', params: ['AcpSessionId', 'AcpVersion', 'RequestId'], ok: 'AcpCheckoutSession' }),
        post: operation('acp', { id: 'acp.updateCheckoutSession', summary: 'Update a checkout session', params: ['AcpSessionId', ...ACP_POST], body: schemaOf(UpdateRequest), ok: 'AcpCheckoutSession', extraErrors: [409, 422] }),
      },
      [`${acpSession}/complete`]: {
        post: operation('acp', { id: 'acp.completeCheckoutSession', summary: 'Complete a checkout session (pay)', params: ['AcpSessionId', ...ACP_POST], body: schemaOf(CompleteRequest), ok: 'AcpCheckoutSession', extraErrors: [409, 422] }),
      },
      [`${acpSession}/cancel`]: {
        post: operation('acp', { id: 'acp.cancelCheckoutSession', summary: 'Cancel a checkout session', params: ['AcpSessionId', ...ACP_POST], body: schemaOf(CancelRequest), ok: 'AcpCheckoutSession', extraErrors: [405, 409, 422] }),
      },
      '/ucp/checkout-sessions': {
        post: operation('ucp', { id: 'ucp.createCheckout', summary: 'Create a checkout', params: UCP_WRITE, body: ucpBody('checkout create request'), ok: 'UcpCheckout', okStatus: 201, extraErrors: [409, 422] }),
      },
      [ucpSession]: {
        get: operation('ucp', { id: 'ucp.getCheckout', summary: 'Get a checkout', params: ['UcpSessionId', 'UcpAgent', 'RequestId'], ok: 'UcpCheckout' }),
        put: operation('ucp', { id: 'ucp.updateCheckout', summary: 'Update a checkout', params: ['UcpSessionId', ...UCP_WRITE], body: ucpBody('checkout update request'), ok: 'UcpCheckout', extraErrors: [409, 422] }),
      },
      [`${ucpSession}/complete`]: {
        post: operation('ucp', { id: 'ucp.completeCheckout', summary: 'Complete a checkout', params: ['UcpSessionId', ...UCP_WRITE], body: ucpBody('checkout complete request'), ok: 'UcpCheckout', extraErrors: [402, 409, 422] }),
      },
      [`${ucpSession}/cancel`]: {
        post: operation('ucp', { id: 'ucp.cancelCheckout', summary: 'Cancel a checkout', params: ['UcpSessionId', ...UCP_WRITE], ok: 'UcpCheckout', extraErrors: [409, 422] }),
      },
      '/ucp/orders/{id}': {
        get: operation('ucp', { id: 'ucp.getOrder', summary: 'Get an order of one of the platform’s checkouts', params: ['UcpOrderId', 'UcpAgent', 'RequestId'], ok: 'UcpOrder' }),
        put: operation('ucp', {
          id: 'ucp.updateOrder',
          summary: 'Record fulfillment events and adjustments on an order of the platform’s checkouts (a key with orders:write; not in UCP’s REST binding, docs/agentic-checkout.md reading 17; a body the order schema refuses is 422)',
          params: ['UcpOrderId', ...UCP_WRITE],
          body: { type: 'object', description: `UCP ${UCP_VERSION} order with the fulfillment.events and adjustments to record; the rest is read-only.`, externalDocs: { url: `${UCP_SCHEMAS}/order.json` } },
          ok: 'UcpOrder',
          extraErrors: [409, 422],
          scope: 'orders:write',
        }),
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (or OAuth token) with scope checkout:agent; UCP also takes it as X-API-Key.' } },
      parameters: PARAMETERS,
      schemas: SCHEMAS,
    },
  };
}
