/**
 * The closed list of problem codes. Every error the service returns is one of these, rendered as
 * RFC 9457 problem+json by toProblem(). docs/errors.md documents each code; a test keeps the two in step.
 */
export const PROBLEMS = {
  invalid_json: { status: 400, title: 'Malformed JSON', resolution: 'Send a syntactically valid JSON object as the request body.' },
  invalid_body: { status: 400, title: 'Body must be a JSON object', resolution: 'Send a JSON object as the body; use {} when the tool takes no fields.' },
  invalid_request: { status: 400, title: 'Invalid request', resolution: 'Fix the fields named in detail; the tool schema is in /openapi.json.' },
  invalid_image_url: { status: 400, title: 'Image URL not allowed', resolution: 'Use a public https:// URL without credentials.' },
  invalid_webhook_url: { status: 400, title: 'Webhook URL not allowed', resolution: 'Use an https:// URL without credentials whose host resolves to public addresses.' },
  invalid_idempotency_key: { status: 400, title: 'Invalid Idempotency-Key', resolution: 'Send one Idempotency-Key of 1 to 255 visible ASCII characters.' },
  unauthorized: { status: 401, title: 'Unauthorized', resolution: 'Send Authorization: Bearer <API key>; create a key with the CLI (keys create).' },
  invalid_signature: { status: 401, title: 'Signature invalid', resolution: 'Sign the payload with the webhook signing secret (Stripe-Signature), within 5 minutes of sending it.' },
  insufficient_scope: { status: 403, title: 'Forbidden', resolution: 'Use a key that has the scope named in detail.' },
  unknown_tool: { status: 404, title: 'Unknown tool', resolution: 'List the tools in /openapi.json or over MCP tools/list.' },
  not_found: { status: 404, title: 'Not found', resolution: 'Check the identifier; list the entities to find valid ones.' },
  method_not_allowed: { status: 405, title: 'Method not allowed', resolution: 'Use POST for tool calls.' },
  conflict: { status: 409, title: 'Conflict', resolution: 'Choose another unique value (slug or code), or update the existing entity.' },
  order_not_payable: { status: 409, title: 'Order not awaiting payment', resolution: 'Only a pending_payment order gets a payment link; check its status with orders.get.' },
  idempotency_in_progress: { status: 409, title: 'Request in progress', resolution: 'A request with this Idempotency-Key is still running; retry after it finishes.' },
  payload_too_large: { status: 413, title: 'Payload too large', resolution: 'Send a smaller body.' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', resolution: 'Send Content-Type: application/json.' },
  confirmation_required: { status: 422, title: 'Confirmation required', resolution: 'Preview with dryRun: true, then repeat the call with confirm: true.' },
  confirmation_declined: { status: 422, title: 'Confirmation declined', resolution: 'The person asked to approve the change declined it; nothing was changed. Ask them before trying again.' },
  slug_immutable: { status: 422, title: 'Slug cannot be changed', resolution: 'Remove slug from patch; create a new entity if a new slug is needed.' },
  category_not_empty: { status: 422, title: 'Category still has products', resolution: 'Move or delete the category’s products first.' },
  illegal_transition: { status: 422, title: 'Illegal status transition', resolution: 'Choose one of the legal targets listed in detail.' },
  tracking_requires_shipped: { status: 422, title: 'Tracking only when shipping', resolution: 'Send carrier, trackingNumber and trackingUrl with status "shipped" only.' },
  not_refundable: { status: 422, title: 'Order not refundable', resolution: 'Refund only an order whose payment was taken (paid and later statuses, not disputed or cancelled); check orders.get.' },
  refund_exceeds_paid: { status: 422, title: 'Refund exceeds what was paid', resolution: 'Refund at most the amount detail names (paid minus already refunded), or leave amountDkk out to refund all of it.' },
  discount_unavailable: { status: 422, title: 'Discount code unavailable', resolution: 'Use another code, or check it with discounts.list.' },
  out_of_stock: { status: 422, title: 'Out of stock', resolution: 'Reduce the quantity or choose another product.' },
  variant_required: { status: 422, title: 'Variant required', resolution: 'Name one of the variants listed in detail (variantId or sku), or change it with variants.update.' },
  invalid_options: { status: 422, title: 'Options invalid', resolution: 'Give each option a distinct name and at least one value, each value once.' },
  option_limit_exceeded: { status: 422, title: 'Too many options', resolution: 'Give a product at most 3 options.' },
  option_value_limit_exceeded: { status: 422, title: 'Too many option values', resolution: 'Give an option at most 100 values.' },
  variant_limit_exceeded: { status: 422, title: 'Too many variants', resolution: 'Keep a product at 100 variants or fewer: fewer options or values.' },
  variant_options_mismatch: { status: 422, title: 'Option values do not fit', resolution: 'Give one value of each of the product\'s options, in their order (products.get lists them).' },
  variant_image_unknown: { status: 422, title: 'Image not on the product', resolution: 'Use images of the product (products.get), or attach the image to the product first.' },
  last_variant: { status: 422, title: 'Last variant', resolution: 'A product keeps at least one variant; delete the product instead.' },
  revert_conflict: { status: 422, title: 'Entity changed since this entry', resolution: 'Inspect audit.list for newer entries; pass force: true to revert anyway.' },
  not_revertible: { status: 422, title: 'Entry cannot be reverted', resolution: 'Only entries of reversible tools can be reverted; see audit.revert.' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key reused', resolution: 'Use a new Idempotency-Key for a different request body.' },
  empty_cart: { status: 422, title: 'Cart is empty', resolution: 'Add items with cart.add_item before checkout.' },
  cart_closed: { status: 422, title: 'Cart already checked out', resolution: 'Create a new cart.' },
  checkout_session_closed: { status: 422, title: 'Checkout session closed', resolution: 'Create a new checkout session; a completed, canceled or expired one no longer changes.' },
  checkout_session_incomplete: { status: 422, title: 'Checkout session incomplete', resolution: 'Supply what detail names (buyer e-mail, shipping address, fulfillment option) with an update, then complete again.' },
  payment_declined: { status: 402, title: 'Payment declined', resolution: 'Ask the buyer for another payment instrument and complete again.' },
  payment_rejected: { status: 403, title: 'Payment rejected', resolution: 'The payment was refused as a risk; do not retry with the same instrument.' },
  unsupported_version: { status: 422, title: 'Protocol version not supported', resolution: 'Use a protocol version the service publishes (/.well-known/ucp).' },
  invalid_text: { status: 400, title: 'Text cannot be stored', resolution: 'Remove NUL bytes and unpaired surrogates (U+D800 to U+DFFF without their pair) from the text.' },
  invalid_language_tag: { status: 400, title: 'Not a language tag', resolution: 'Send a BCP 47 language tag such as da or en-GB.' },
  invalid_country_code: { status: 400, title: 'Not a country code', resolution: 'Send an ISO 3166-1 alpha-2 code in upper case, such as DK or US (null: every country).' },
  unknown_event_type: { status: 400, title: 'Unknown event type', resolution: 'Use event types from the catalogue (webhooks in /openapi.json), "<entity>.*" or "*".' },
  invalid_cursor: { status: 400, title: 'Unknown cursor', resolution: 'Pass nextCursor from the previous page unchanged, or leave cursor out for the first page.' },
  event_not_subscribed: { status: 422, title: 'Event not subscribed', resolution: 'Redeliver only events of types the endpoint subscribes to; change its events with webhooks.update first.' },
  platform_events_only: { status: 422, title: 'Order events only', resolution: 'Subscribe a platform\'s endpoint (acpPlatformKeyId) to order events only: "order.*" or order event types.' },
  invalid_layout: { status: 422, title: 'Layout rule broken', resolution: 'Give every section a unique id and link to a site path starting with / or an https URL.' },
  nothing_to_change: { status: 422, title: 'Nothing to change', resolution: 'Name at least one field to change.' },
  invalid_date_range: { status: 422, title: 'Date range reversed', resolution: 'Send a fromDate at or before toDate.' },
  date_not_in_future: { status: 422, title: 'Date not in the future', resolution: 'Send a moment in the future, or leave the field out.' },
  value_out_of_range: { status: 422, title: 'Value out of range', resolution: 'Use a value within the range detail names (it depends on other fields or on stored data).' },
  rate_limited: { status: 429, title: 'Too Many Requests', resolution: 'Wait Retry-After seconds, then retry.' },
  internal_error: { status: 500, title: 'Internal Server Error', resolution: 'Retry later; report the instance value if it persists.' },
  upstream_error: { status: 502, title: 'Upstream error', resolution: 'Retry later; the external provider failed.' },
  service_unavailable: { status: 503, title: 'Service unavailable', resolution: 'Retry after Retry-After seconds.' },
  upstream_timeout: { status: 504, title: 'Upstream timeout', resolution: 'Retry later; the external provider did not answer in time.' },
} as const satisfies Record<string, { status: number; title: string; resolution: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** Codes only routes other than tool calls answer with (Stripe's webhook): no tool operation lists them. */
export const NON_TOOL_PROBLEMS: ReadonlySet<ProblemCode> = new Set(['invalid_signature']);

export class AppError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  /** Extra response headers (WWW-Authenticate, Retry-After …). */
  readonly headers: Readonly<Record<string, string>>;
  /** Replaces the code's usual resolution when this case needs a different next step (e.g. which setting to fix). */
  readonly resolution: string | undefined;

  constructor(code: ProblemCode, detail: string, headers: Record<string, string> = {}, resolution?: string) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = PROBLEMS[code].status;
    this.headers = headers;
    this.resolution = resolution;
  }
}

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ProblemCode;
  resolution: string;
  /** Legacy fields kept for one compatibility window (docs/errors.md). */
  ok: false;
  error: string;
};

const QUOTA_EXCEEDED = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

export function problemType(code: ProblemCode): string {
  return code === 'rate_limited' ? QUOTA_EXCEEDED : `/problems/${code}`;
}

/** Renders any thrown value as a problem. Unknown errors never reveal their message (it may hold SQL or paths). */
export function toProblem(err: unknown, instance: string): Problem {
  const known = err instanceof AppError ? err : classifyUnknown(err);
  const def = PROBLEMS[known.code];
  return {
    type: problemType(known.code),
    title: def.title,
    status: def.status,
    detail: known.message,
    instance,
    code: known.code,
    resolution: known.resolution ?? def.resolution,
    ok: false,
    error: known.message,
  };
}

/** Database-level failures that are not bugs: unreachable server, unique and foreign-key violations. */
export function classifyUnknown(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError('service_unavailable', 'The database is unavailable.', { 'Retry-After': '5' });
  }
  const prismaCode = (err as { code?: unknown })?.code;
  if (prismaCode === 'P2002') return new AppError('conflict', 'A record with this unique value already exists.');
  if (prismaCode === 'P2003') return new AppError('conflict', 'The record is still referenced by other records.');
  if (prismaCode === 'P2025') return new AppError('not_found', 'The record does not exist.');
  return new AppError('internal_error', 'An unexpected error occurred.');
}

const UNAVAILABLE_NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', '57P01', '57P02', '57P03', '53300']);
/**
 * Prisma's codes for an unreachable server, a timeout, a closed connection, connection exhaustion, and a transaction
 * that could not start or finish in time (P2028: overload; the write was rolled back, so a retry is safe).
 */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028', 'P2037']);
/** @prisma/adapter-pg's error kinds (on DriverAdapterError.cause) for the same conditions. */
const UNAVAILABLE_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

type ErrorLink = { code?: unknown; message?: unknown; name?: unknown; cause?: unknown; kind?: unknown; meta?: { driverAdapterError?: unknown } };

/**
 * The error and what it wraps, outermost first. Prisma's known-request errors (P2010 raw query failed, P2039 database
 * error …) carry the adapter's error in meta.driverAdapterError, whose cause holds the socket error kind or the
 * PostgreSQL SQLSTATE.
 */
function* errorChain(err: unknown): Generator<ErrorLink> {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const link = e as ErrorLink;
    yield link;
    e = link.cause ?? (link.meta && typeof link.meta === 'object' ? link.meta.driverAdapterError : undefined);
  }
}

/**
 * PostgreSQL asked for the transaction to be run again: a serialization failure (40001, also what agent_api_expect
 * raises when rows a write read have changed before it locked them) or a deadlock (40P01). Prisma reports both as
 * P2034, its adapter as kind TransactionWriteConflict. The transaction was rolled back, so running it again is safe.
 */
export function isRetryableConflict(err: unknown): boolean {
  for (const { code, kind } of errorChain(err)) {
    if (code === '40001' || code === '40P01' || code === 'P2034' || kind === 'TransactionWriteConflict') return true;
  }
  return false;
}

/** PostgreSQL raised this SQLSTATE, wherever in the chain of wrapping errors it is. */
export function hasSqlState(err: unknown, state: string): boolean {
  for (const { code } of errorChain(err)) if (code === state) return true;
  return false;
}

function isDatabaseUnavailable(err: unknown): boolean {
  for (const { code, message, name, kind } of errorChain(err)) {
    if (typeof code === 'string' && (UNAVAILABLE_NET_CODES.has(code) || UNAVAILABLE_PRISMA_CODES.has(code))) return true;
    if (typeof kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return true;
    if (name === 'DriverAdapterError' || name === 'PrismaClientInitializationError') {
      if (typeof message === 'string' && /connect|terminat|timeout|closed|ECONN|shut/i.test(message)) return true;
    }
    // pg's words for a connection that dropped: mid-query, before it, or (checked out, between statements) since.
    if (typeof message === 'string' && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|connection error and is not queryable/i.test(message)) return true;
  }
  return false;
}
