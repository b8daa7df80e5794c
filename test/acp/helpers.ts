// What the ACP tests share: the service with a small catalogue whose variant ids are the protocol examples' item
// ids, the fake Stripe API, a platform key with checkout:agent, ACP requests with the protocol's headers, and
// validation of every answer against the protocol's JSON Schema.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadSettings } from '../../src/services/settings.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-server.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ACP_SPECS = path.resolve(REPO_ROOT, '../shared/specs/acp-2026-04-17');
export const ACP_VERSION = '2026-04-17';

const schema = JSON.parse(readFileSync(path.join(ACP_SPECS, 'json-schema/schema.agentic_checkout.json'), 'utf8')) as { $id: string };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(schema);
const compiled = new Map<string, ValidateFunction>();
const validator = (name: string) => {
  let v = compiled.get(name);
  if (!v) compiled.set(name, (v = ajv.compile({ $ref: `${schema.$id}#/$defs/${name}` })));
  return v;
};

export function expectSchema(body: unknown, name: string): void {
  const v = validator(name);
  expect(v(body), `${name}: ${JSON.stringify(v.errors?.slice(0, 5))}`).toBe(true);
}

export type AcpTotal = { type: string; amount: number };
export type AcpSession = {
  id: string; status: string; currency: string; totals: AcpTotal[];
  line_items: Array<{ id: string; item: { id: string }; quantity: number; unit_amount: number }>;
  messages: Array<{ type: string; code: string; param?: string }>;
  fulfillment_options: Array<{ id: string }>; selected_fulfillment_options?: Array<{ option_id: string }>;
  links: Array<{ type: string; url: string }>; capabilities: { payment: { handlers: Array<{ id: string }> } };
  order?: { id: string; checkout_session_id: string; permalink_url: string; status: string };
};
export type AcpErrorBody = { type: string; code: string; message: string; param?: string; supported_versions?: string[] };

/** Asserts the status and that the body is the protocol's CheckoutSession (with order once completed). */
export function session(res: LightMyRequestResponse, status = 200): AcpSession {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expectSchema(body, body.status === 'completed' ? 'CheckoutSessionWithOrder' : 'CheckoutSession');
  return body;
}

export function acpError(res: LightMyRequestResponse, status: number, code?: string): AcpErrorBody {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expectSchema(body, 'Error');
  if (code) expect(body.code).toBe(code);
  return body;
}

export const total = (s: { totals: AcpTotal[] }, type: string) => s.totals.find((t) => t.type === type)?.amount;

/** Products whose single variants carry the examples' item ids (stock 1000), and one with a single unit left. */
export async function seedCatalogue(t: TestApp): Promise<void> {
  const items: Array<[id: string, name: string, price: number, stock: number]> = [
    ['item_123', 'Vintage Denim Jacket', 300, 1000], ['item_456', 'Canvas Tote', 500, 1000], ['item_last', 'Last Lamp', 2000, 1],
  ];
  for (const [id, name, price, stock] of items) {
    await t.db.$transaction(async (tx) => {
      const product = await tx.product.create({ data: { slug: id.replace('_', '-'), name, description: `${name}.`, priceDkk: BigInt(price), stock: BigInt(stock), images: [] } });
      await tx.$executeRaw`UPDATE "ProductVariant" SET id = ${id}, sku = ${id} WHERE "productId" = ${product.id}`;
    });
  }
  await loadSettings(t.db);
  await t.db.shopSettings.update({ where: { id: 1 }, data: { currency: 'USD', vatRateBasisPoints: 2500, shippingFeeDkk: 100n, freeShippingThresholdDkk: null } });
}

export type World = { t: TestApp; stripe: FakeStripe; key: string };

export async function acpWorld(opts: { stripe?: boolean; env?: Record<string, string> } = {}): Promise<World> {
  const stripe = await startFakeStripe();
  const stripeEnv: Record<string, string> = opts.stripe === false ? {} : { STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_URL: stripe.url };
  const t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: '1', PUBLIC_BASE_URL: 'https://shop.example.com', ...stripeEnv, ...opts.env } });
  await seedCatalogue(t);
  return { t, stripe, key: await t.key(['checkout:agent']) };
}

/** The world of a test file, set up before its tests and closed after them. */
export function useAcp(opts: { stripe?: boolean; env?: Record<string, string> } = {}): World {
  const ctx: { w?: World } = {};
  beforeAll(async () => {
    ctx.w = await acpWorld(opts);
  });
  afterAll(async () => {
    await ctx.w?.t.close();
    await ctx.w?.stripe.close();
  });
  const world = () => {
    if (!ctx.w) throw new Error('the service is not started yet');
    return ctx.w;
  };
  return {
    get t() { return world().t; },
    get stripe() { return world().stripe; },
    get key() { return world().key; },
  };
}

type Call = { key?: string | null; idempotencyKey?: string | null; headers?: Record<string, string> };

/** An ACP request as a platform sends it: Bearer key, API-Version, Request-Id and (POST) a fresh Idempotency-Key. */
export function acp(w: World, method: 'GET' | 'POST', url: string, body?: unknown, call: Call = {}) {
  const idem = call.idempotencyKey === undefined ? randomUUID() : call.idempotencyKey;
  const key = call.key === undefined ? w.key : call.key;
  return w.t.app.inject({
    method,
    url,
    headers: {
      ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
      'api-version': ACP_VERSION,
      'request-id': `req_${randomUUID()}`,
      ...(idem !== null && method === 'POST' ? { 'idempotency-key': idem } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...call.headers,
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

export const ADDRESS = { name: 'John Doe', line_one: '1234 Chat Road', city: 'San Francisco', state: 'CA', country: 'US', postal_code: '94131' };

/** A create body; `ready` adds the contact and address, so the session can be paid (shipping is preselected). */
export const createBody = (items: Array<[string, number]> = [['item_123', 1]], ready = false) => ({
  currency: 'usd',
  line_items: items.map(([id, quantity]) => ({ id, quantity })),
  capabilities: {},
  ...(ready ? { fulfillment_details: { name: 'John Doe', email: 'john@example.com', address: ADDRESS } } : {}),
});

export const payWith = (token: string) => ({ payment_data: { handler_id: 'card_tokenized', instrument: { type: 'card', credential: { type: 'spt', token } } } });
