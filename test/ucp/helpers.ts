// What the UCP tests share: the service seeded with the conformance flower shop, a platform (its key with
// checkout:agent and its profile served locally, naming a webhook receiver), UCP requests, and validation of every
// answer against the protocol's own JSON schemas.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { seedFlowerShop } from '../../src/cli/seed/flower-shop.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { sendJson, startLocalServer, type LocalServer, type RecordedRequest } from '../outbound/local-server.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const UCP_SPECS = path.resolve(REPO_ROOT, '../shared/specs/ucp-2026-04-08');
export const FLOWER_SHOP = path.join(UCP_SPECS, 'flower_shop');
export const SIMULATION_SECRET = 'simulation-secret-for-tests';

// ---- Schemas --------------------------------------------------------------------------------------------------

function schemaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? schemaFiles(full) : name.endsWith('.json') ? [full] : [];
  });
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const file of schemaFiles(path.join(UCP_SPECS, 'source/schemas'))) ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')));
// The profile schema lives beside schemas/ (its references say ../schemas/…), so it is registered where that holds.
ajv.addSchema({ ...JSON.parse(readFileSync(path.join(UCP_SPECS, 'source/discovery/profile_schema.json'), 'utf8')), $id: 'https://ucp.dev/discovery/profile.json' });
const S = 'https://ucp.dev/schemas';
const compiled = new Map<string, ValidateFunction>();
const validator = (ref: string) => {
  let v = compiled.get(ref);
  if (!v) compiled.set(ref, (v = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref })));
  return v;
};

/** A checkout with the extensions this service declares: each extension's checkout schema must accept it. */
export const CHECKOUT_SCHEMAS = [
  `${S}/shopping/checkout.json`,
  `${S}/shopping/fulfillment.json#/$defs/dev.ucp.shopping.checkout`,
  `${S}/shopping/discount.json#/$defs/dev.ucp.shopping.checkout`,
  `${S}/shopping/buyer_consent.json#/$defs/dev.ucp.shopping.checkout`,
];
export const ORDER_SCHEMA = `${S}/shopping/order.json`;
export const ERROR_SCHEMA = `${S}/shopping/types/error_response.json`;
export const PROFILE_SCHEMA = 'https://ucp.dev/discovery/profile.json#/$defs/business_profile';

export function expectValid(body: unknown, refs: readonly string[]): void {
  for (const ref of refs) {
    const v = validator(ref);
    expect(v(body), `${ref}: ${JSON.stringify(v.errors?.slice(0, 5))}`).toBe(true);
  }
}

/** Asserts the status and that the body is the protocol's checkout (2xx) or error response; returns the body. */
export function checkout(res: LightMyRequestResponse, status = 200): Record<string, unknown> & UcpCheckout {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expectValid(body, CHECKOUT_SCHEMAS);
  return body;
}

/**
 * Asserts the status and that the body is the protocol's error response, plus `detail` (the first message's content
 * again, for clients reading the conformance suite's error shape; docs/agentic-checkout.md, reading 16).
 */
export function ucpError(res: LightMyRequestResponse, status: number, code?: string): UcpError {
  expect(res.statusCode, res.body).toBe(status);
  const body = errorBody(res.json(), status);
  if (code) expect(body.messages[0].code).toBe(code);
  return body;
}

/**
 * A REST error body: the protocol's error response, plus (only on a 400) `detail`, its first message's content again;
 * every other error is the schema's alone.
 */
export function errorBody(json: unknown, status: number): UcpError {
  const { detail, ...body } = json as UcpError & { detail?: unknown };
  expectValid(body, [ERROR_SCHEMA]);
  expect(detail).toBe(status === 400 ? body.messages[0].content : undefined);
  return body;
}

export type UcpTotal = { type: string; amount: number; display_text?: string };
export type UcpCheckout = {
  id: string; status: string; currency: string; totals: UcpTotal[]; messages: Array<{ type: string; code: string; path?: string; severity?: string }>;
  line_items: Array<{ id: string; item: { id: string; title: string; price: number }; quantity: number; totals: UcpTotal[] }>;
  fulfillment: { methods: Array<{ id: string; groups: Array<{ id: string; options: Array<{ id: string; totals: UcpTotal[] }>; selected_option_id: string | null }> }> };
  discounts: { codes: string[]; applied: Array<{ code: string; amount: number }> };
  links: Array<{ type: string; url: string }>;
  order?: { id: string; permalink_url: string };
  continue_url?: string;
  expires_at: string;
};
export type UcpError = { ucp: { status: string }; messages: Array<{ type: string; code: string; content: string; severity: string }> };

export const total = (c: { totals: UcpTotal[] }, type: string) => c.totals.find((t) => t.type === type)?.amount;

// ---- The platform -----------------------------------------------------------------------------------------------

export type Platform = { key: string; profileUrl: string; webhooks: RecordedRequest[]; close: () => Promise<void>; server: LocalServer };

/** A platform: its key (checkout:agent only) and its profile served on a local server, with a webhook URL there too. */
export async function startPlatform(t: TestApp, opts: { version?: string } = {}): Promise<Platform> {
  const webhooks: RecordedRequest[] = [];
  let origin = '';
  const server = await startLocalServer((req, res: ServerResponse) => {
    if (req.method === 'GET' && req.path === '/profile.json') {
      sendJson(res, 200, {
        ucp: {
          version: opts.version ?? '2026-04-08',
          services: {}, payment_handlers: {},
          capabilities: { 'dev.ucp.shopping.order': [{ version: '2026-04-08', config: { webhook_url: `${origin}/webhooks/order` } }] },
        },
      });
      return;
    }
    webhooks.push(req);
    sendJson(res, 200, { ucp: { version: '2026-04-08' } });
  });
  origin = server.origin;
  const key = await t.key(['checkout:agent']);
  return { key, profileUrl: `${origin}/profile.json`, webhooks, server, close: () => server.close() };
}

/** The service with the flower shop seeded. */
export async function ucpApp(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: '1', WEBHOOK_POLL_INTERVAL: '20ms', UCP_SIMULATION_SECRET: SIMULATION_SECRET, ...env } });
  await seedFlowerShop(t.db, FLOWER_SHOP);
  return t;
}

type Call = { key?: string; profile?: string; idempotencyKey?: string | null; headers?: Record<string, string> };

/** A UCP REST request as a platform sends it: its key, UCP-Agent, a fresh Idempotency-Key and Request-Id. */
export function ucp(t: TestApp, p: Platform, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, call: Call = {}) {
  const idem = call.idempotencyKey === undefined ? randomUUID() : call.idempotencyKey;
  return t.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${call.key ?? p.key}`,
      'ucp-agent': `profile="${call.profile ?? p.profileUrl}"`,
      'request-id': randomUUID(),
      ...(idem !== null && method !== 'GET' ? { 'idempotency-key': idem } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...call.headers,
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

export const ROSES = 'bouquet_roses';
/** The flower shop's standard shipping rate (shipping_rates.csv): 5.00 for every country, free by its promotions. */
export const STANDARD_RATE = 'std-ship';
export const ADDRESS = { street_address: '123 Market St', address_locality: 'San Francisco', address_region: 'CA', postal_code: '94105', address_country: 'US' };

export const lines = (items: Array<[string, number]>) => items.map(([id, quantity]) => ({ item: { id }, quantity }));

/** A create body; `ready` adds a buyer, the address and the shipping option, so the checkout can be completed. */
export function createBody(items: Array<[string, number]> = [[ROSES, 1]], ready = false) {
  return {
    line_items: lines(items),
    ...(ready ? {
      buyer: { email: 'buyer@example.com', first_name: 'Ada', last_name: 'Buyer' },
      fulfillment: { methods: [{ type: 'shipping', destinations: [{ id: 'dest_1', ...ADDRESS }], selected_destination_id: 'dest_1', groups: [{ selected_option_id: STANDARD_RATE }] }] },
    } : {}),
  };
}

export const paymentWith = (token: string, handlerId = 'mock_payment_handler') => ({
  payment: { instruments: [{ id: 'instr_1', handler_id: handlerId, type: 'card', selected: true, credential: { type: 'token', token } }] },
});

/** The suite's service and platform, set up before its tests and closed after them. */
export function useUcp(): { readonly t: TestApp; readonly p: Platform } {
  const ctx: { t?: TestApp; p?: Platform } = {};
  beforeAll(async () => {
    ctx.t = await ucpApp();
    ctx.p = await startPlatform(ctx.t);
  });
  afterAll(async () => {
    await ctx.p?.close();
    await ctx.t?.close();
  });
  return {
    get t() {
      if (!ctx.t) throw new Error('the service is not started yet');
      return ctx.t;
    },
    get p() {
      if (!ctx.p) throw new Error('the platform is not started yet');
      return ctx.p;
    },
  };
}
