// A fake Stripe API for the payment tests and the bench, on an ephemeral local port: only what the service uses.
//
// Request and response shapes follow Stripe's published OpenAPI description (repository stripe/openapi, file
// openapi/spec3.json): the operations POST /v1/checkout/sessions, GET /v1/checkout/sessions/{session},
// POST /v1/checkout/sessions/{session}/expire, POST /v1/payment_intents (confirmed at once with an agent's
// SharedPaymentToken, payment_method_data[shared_payment_granted_token], and return_url for a redirect to the
// bank's 3-D Secure page: next_action redirect_to_url), GET /v1/payment_intents/{intent} (with expand[]) and
// POST /v1/refunds,
// and the schemas checkout.session, payment_intent, charge, refund, dispute, review and event. Requests are
// application/x-www-form-urlencoded with bracketed keys (line_items[0][price_data][unit_amount]); errors are
// {"error": {type, code, message, param}} with 400/401/404. An Idempotency-Key is honoured as Stripe does: the same
// key answers the first response again, and with other parameters 400 idempotency_error.
//
// Events are built with the objects as they stand, signed with the SDK's generateTestHeaderString (the scheme
// Stripe signs deliveries with) and handed to `deliver`, which the tests point at the webhook route.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

type Json = Record<string, unknown>;
type Answer = { status: number; body: Json };

const PAYMENT_METHOD_TYPES = new Set(['card', 'mobilepay', 'klarna', 'paypal', 'link', 'sepa_debit', 'swish', 'bancontact', 'ideal']);

const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

/** Form-encoded Stripe parameters into nested objects; numeric keys make arrays (line_items[0][quantity]). */
export function parseForm(text: string): Json {
  const root: Json = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const path = rawKey.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  return arraysOf(root) as Json;
}

function arraysOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k))) return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => arraysOf(v));
  return Object.fromEntries(entries.map(([k, v]) => [k, arraysOf(v)]));
}

const error = (status: number, type: string, message: string, extra: Json = {}): Answer => ({ status, body: { error: { type, message, ...extra } } });
const invalid = (param: string, message: string) => error(400, 'invalid_request_error', message, { param, code: 'parameter_invalid' });
const missing = (what: string, id: string) => error(404, 'invalid_request_error', `No such ${what}: '${id}'`, { code: 'resource_missing' });

const int = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export type FakeStripe = {
  url: string;
  secretKey: string;
  webhookSecret: string;
  sessions: Map<string, Json>;
  intents: Map<string, Json>;
  charges: Map<string, Json>;
  refunds: Map<string, Json>;
  /** Every request received: method, path and parsed parameters. */
  requests: { method: string; path: string; params: Json; idempotencyKey: string | undefined }[];
  /** The buyer pays the session: it completes, its payment intent succeeds with a charge of this method. */
  pay: (sessionId: string, method?: string) => { session: Json; intent: Json; charge: Json };
  /** The buyer passes (or fails) the bank's authentication of an intent in requires_action. */
  authenticate: (intentId: string, passed: boolean) => Json;
  /** The session runs out (as Stripe does after expires_at, or POST …/expire). */
  expire: (sessionId: string) => Json;
  /** A dispute of the charge, in the given status. */
  dispute: (chargeId: string, status: string) => Json;
  /** A Radar review of the payment. */
  review: (intentId: string, open: boolean, reason: string) => Json;
  /** An event of this type with (a copy of) the object as it stands; `created` in seconds, default now. */
  event: (type: string, object: Json, created?: number) => Json;
  /** The payload and headers Stripe would send for the event, signed with the webhook secret (or `secret`). */
  signed: (event: Json, opts?: { secret?: string; timestamp?: number }) => { payload: string; headers: Record<string, string> };
  close: () => Promise<void>;
};

/** `record: false` keeps no request log (the bench makes tens of thousands of sessions). */
export async function startFakeStripe(
  opts: { secretKey?: string; webhookSecret?: string; latencyMs?: number; port?: number; record?: boolean } = {},
): Promise<FakeStripe> {
  const secretKey = opts.secretKey ?? 'sk_test_fake';
  const webhookSecret = opts.webhookSecret ?? 'whsec_fakeStripeSigningSecret';
  const sessions = new Map<string, Json>();
  const intents = new Map<string, Json>();
  const charges = new Map<string, Json>();
  const refunds = new Map<string, Json>();
  const idempotent = new Map<string, { params: string; answer: Answer }>();
  const requests: FakeStripe['requests'] = [];

  function createSession(p: Json): Answer {
    if (p.mode !== 'payment') return invalid('mode', 'mode must be payment here.');
    const lines = list(p.line_items);
    if (lines.length === 0 || lines.length > 100) return invalid('line_items', 'line_items needs 1 to 100 items.');
    let total = 0;
    let currency: string | null = null;
    for (const [i, raw] of lines.entries()) {
      const line = obj(raw);
      const price = obj(line.price_data);
      const amount = int(price.unit_amount);
      const quantity = int(line.quantity);
      if (amount === null || quantity === null || quantity < 1) return invalid(`line_items[${i}]`, 'unit_amount and quantity must be whole numbers, quantity at least 1.');
      if (typeof price.currency !== 'string' || !/^[a-z]{3}$/.test(price.currency)) return invalid(`line_items[${i}][price_data][currency]`, 'Invalid currency.');
      if (currency !== null && price.currency !== currency) return invalid('line_items', 'All line items must share one currency.');
      if (typeof obj(price.product_data).name !== 'string') return invalid(`line_items[${i}][price_data][product_data][name]`, 'A name is required.');
      currency = price.currency;
      total += amount * quantity;
    }
    for (const field of ['success_url', 'cancel_url'] as const) {
      if (typeof p[field] !== 'string' || !/^https?:\/\//.test(p[field])) return invalid(field, `${field} must be a URL.`);
    }
    const methods = list(p.allowed_payment_method_types);
    if (methods.some((m) => typeof m !== 'string' || !PAYMENT_METHOD_TYPES.has(m))) return invalid('allowed_payment_method_types', 'Unknown payment method type.');
    const id = newId('cs');
    const session: Json = {
      id, object: 'checkout.session', mode: 'payment', status: 'open', payment_status: 'unpaid', livemode: false, created: now(),
      expires_at: now() + 24 * 3600, amount_subtotal: total, amount_total: total, currency,
      client_reference_id: p.client_reference_id ?? null, customer_email: p.customer_email ?? null, metadata: obj(p.metadata),
      allowed_payment_method_types: methods.length > 0 ? methods : null, payment_method_types: methods.length > 0 ? methods : ['card'],
      payment_intent: null, success_url: p.success_url, cancel_url: p.cancel_url, url: `https://checkout.stripe.com/c/pay/${id}`,
      // Kept for pay(): Stripe copies payment_intent_data.metadata onto the payment intent.
      _intentMetadata: obj(obj(p.payment_intent_data).metadata),
    };
    sessions.set(id, session);
    return { status: 200, body: visible(session) };
  }

  /** A succeeded payment of the intent: its charge, and the intent moved to succeeded. */
  function succeed(intent: Json): Json {
    const charge: Json = {
      id: newId('ch'), object: 'charge', amount: intent.amount, amount_captured: intent.amount, amount_refunded: 0, refunded: false, captured: true, paid: true,
      status: 'succeeded', currency: intent.currency, payment_intent: intent.id, created: now(), disputed: false, metadata: obj(intent.metadata),
      payment_method_details: { type: 'card' },
    };
    charges.set(String(charge.id), charge);
    return Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: charge.id, next_action: null });
  }

  /**
   * A PaymentIntent confirmed with a granted SharedPaymentToken (Stripe's agentic commerce: the token goes in
   * payment_method_data[shared_payment_granted_token] with confirm=true). A token whose id contains `declined` is
   * declined as a card would be (402 card_error, card_declined), one containing `fraud` likewise with decline_code
   * fraudulent; one containing `challenge` needs the buyer's authentication: the intent is requires_action, with
   * next_action redirect_to_url when a return_url was sent (else use_stripe_sdk), until `authenticate`. Any other
   * `spt_` token pays, with a charge.
   */
  function createPaymentIntent(p: Json): Answer {
    const amount = int(p.amount);
    if (amount === null || amount < 1) return invalid('amount', 'amount must be a positive whole number.');
    if (typeof p.currency !== 'string' || !/^[a-z]{3}$/.test(p.currency)) return invalid('currency', 'Invalid currency.');
    const token = obj(p.payment_method_data).shared_payment_granted_token;
    if (typeof token !== 'string' || !token.startsWith('spt_')) return invalid('payment_method_data[shared_payment_granted_token]', 'A granted SharedPaymentToken (spt_…) is required.');
    if (p.confirm !== 'true') return invalid('confirm', 'This fake confirms shared payment tokens at creation only: send confirm=true.');
    if (p.return_url !== undefined && (typeof p.return_url !== 'string' || !/^https?:\/\//.test(p.return_url))) return invalid('return_url', 'return_url must be a URL.');
    const id = newId('pi');
    const base: Json = {
      id, object: 'payment_intent', amount, currency: p.currency, metadata: obj(p.metadata), payment_method_types: ['card'], created: now(),
      capture_method: 'automatic', confirmation_method: 'automatic', next_action: null,
    };
    const decline = token.includes('declined') ? 'generic_decline' : token.includes('fraud') ? 'fraudulent' : null;
    if (decline) {
      const intent: Json = { ...base, status: 'requires_payment_method', amount_received: 0, latest_charge: null };
      intents.set(id, intent);
      return error(402, 'card_error', 'Your card was declined.', { code: 'card_declined', decline_code: decline, payment_intent: intent });
    }
    if (token.includes('challenge')) {
      const nextAction = typeof p.return_url === 'string'
        ? { type: 'redirect_to_url', redirect_to_url: { url: `https://hooks.stripe.com/3d_secure_2/authenticate/${id}`, return_url: p.return_url } }
        : { type: 'use_stripe_sdk', use_stripe_sdk: {} };
      const intent: Json = { ...base, status: 'requires_action', amount_received: 0, latest_charge: null, next_action: nextAction };
      intents.set(id, intent);
      return { status: 200, body: intent };
    }
    const intent = succeed(base);
    intents.set(id, intent);
    return { status: 200, body: intent };
  }

  function createRefund(p: Json): Answer {
    const intent = typeof p.payment_intent === 'string' ? intents.get(p.payment_intent) : undefined;
    if (!intent) return missing('payment_intent', String(p.payment_intent));
    const charge = charges.get(String(intent.latest_charge))!;
    const left = Number(charge.amount) - Number(charge.amount_refunded);
    const amount = p.amount === undefined ? left : int(p.amount);
    if (amount === null || amount < 1) return invalid('amount', 'amount must be a positive whole number.');
    if (left === 0) return error(400, 'invalid_request_error', `Charge ${String(charge.id)} has already been refunded.`, { code: 'charge_already_refunded' });
    if (amount > left) return error(400, 'invalid_request_error', `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, { code: 'amount_too_large', param: 'amount' });
    const refund: Json = {
      id: newId('re'), object: 'refund', amount, charge: charge.id, payment_intent: intent.id, currency: charge.currency, created: now(),
      status: 'succeeded', metadata: obj(p.metadata), reason: p.reason ?? null,
    };
    refunds.set(String(refund.id), refund);
    charge.amount_refunded = Number(charge.amount_refunded) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    return { status: 200, body: refund };
  }

  function route(method: string, path: string, p: Json): Answer {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(p);
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      const session = sessions.get(m[1]);
      return session ? { status: 200, body: visible(session) } : missing('checkout.session', m[1]);
    }
    if (method === 'POST' && (m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path))) {
      const session = sessions.get(m[1]);
      if (!session) return missing('checkout.session', m[1]);
      if (session.status !== 'open') return error(400, 'invalid_request_error', `Only open sessions can be expired; this one is ${String(session.status)}.`);
      return { status: 200, body: fake.expire(m[1]) };
    }
    if (method === 'GET' && (m = /^\/v1\/payment_intents\/([^/]+)$/.exec(path))) {
      const intent = intents.get(m[1]);
      if (!intent) return missing('payment_intent', m[1]);
      const expand = list(p.expand);
      return { status: 200, body: expand.includes('latest_charge') ? { ...intent, latest_charge: charges.get(String(intent.latest_charge)) ?? null } : intent };
    }
    if (method === 'POST' && path === '/v1/payment_intents') return createPaymentIntent(p);
    if (method === 'POST' && path === '/v1/refunds') return createRefund(p);
    return error(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const [path, query = ''] = (req.url ?? '/').split('?');
    const body = Buffer.concat(chunks).toString('utf8');
    const params = parseForm(req.method === 'GET' ? query : body);
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
    if (opts.record !== false) requests.push({ method: req.method ?? 'GET', path, params, idempotencyKey: key });
    if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
    let answer: Answer;
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      answer = error(401, 'invalid_request_error', 'Invalid API Key provided.');
    } else if (req.method === 'POST' && key !== undefined) {
      const earlier = idempotent.get(key);
      if (earlier && earlier.params !== `${path}?${body}`) {
        answer = error(400, 'idempotency_error', 'Keys for idempotent requests can only be used with the same parameters they were first used with.');
      } else if (earlier) {
        answer = earlier.answer;
        res.setHeader('Idempotent-Replayed', 'true');
      } else {
        answer = route('POST', path, params);
        // Kept as it was answered: Stripe replays the first response, not the object as it stands later.
        idempotent.set(key, { params: `${path}?${body}`, answer: structuredClone(answer) });
      }
    } else {
      answer = route(req.method ?? 'GET', path, params);
    }
    res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': newId('req') });
    res.end(JSON.stringify(answer.body));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeStripe = {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    webhookSecret,
    sessions, intents, charges, refunds, requests,
    pay(sessionId, method = 'card') {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      const intentId = newId('pi');
      const charge: Json = {
        id: newId('ch'), object: 'charge', amount: session.amount_total, amount_captured: session.amount_total, amount_refunded: 0, refunded: false,
        captured: true, paid: true, status: 'succeeded', currency: session.currency, payment_intent: intentId, created: now(), disputed: false,
        metadata: {}, payment_method_details: { type: method },
      };
      const intent: Json = {
        id: intentId, object: 'payment_intent', amount: session.amount_total, amount_received: session.amount_total, currency: session.currency,
        status: 'succeeded', latest_charge: charge.id, metadata: { ...obj(session._intentMetadata) }, payment_method_types: session.payment_method_types,
        created: now(),
      };
      charges.set(String(charge.id), charge);
      intents.set(intentId, intent);
      Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: intentId });
      return { session: visible(session), intent, charge };
    },
    authenticate(intentId, passed) {
      const intent = intents.get(intentId);
      if (!intent || intent.status !== 'requires_action') throw new Error(`no payment intent ${intentId} waiting for authentication`);
      if (passed) return succeed(intent);
      return Object.assign(intent, {
        status: 'requires_payment_method', next_action: null,
        last_payment_error: { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'The provided PaymentMethod has failed authentication.' },
      });
    },
    expire(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      Object.assign(session, { status: 'expired', url: null });
      return visible(session);
    },
    dispute(chargeId, status) {
      const charge = charges.get(chargeId);
      if (!charge) throw new Error(`no charge ${chargeId}`);
      charge.disputed = true;
      return {
        id: newId('dp'), object: 'dispute', amount: charge.amount, currency: charge.currency, charge: chargeId, payment_intent: charge.payment_intent,
        status, reason: 'fraudulent', created: now(), metadata: {},
      };
    },
    review(intentId, open, reason) {
      const intent = intents.get(intentId);
      if (!intent) throw new Error(`no payment intent ${intentId}`);
      return {
        id: newId('prv'), object: 'review', open, reason, closed_reason: open ? null : reason, opened_reason: 'rule', charge: intent.latest_charge,
        payment_intent: intentId, created: now(),
      };
    },
    event(type, object, created = now()) {
      return {
        id: newId('evt'), object: 'event', api_version: Stripe.API_VERSION, created, livemode: false, pending_webhooks: 1,
        request: { id: null, idempotency_key: null }, type, data: { object: structuredClone(visible(object)) },
      };
    },
    signed(event, signOpts = {}) {
      const payload = JSON.stringify(event);
      const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: signOpts.secret ?? webhookSecret, timestamp: signOpts.timestamp });
      return { payload, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header } };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}

/** An object as Stripe shows it: without the fake's own bookkeeping fields. */
function visible(object: Json): Json {
  return Object.fromEntries(Object.entries(object).filter(([k]) => !k.startsWith('_')));
}

/** An address where nothing listens: Stripe "unreachable". */
export async function deadStripeUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
