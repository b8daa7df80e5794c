// Property-based fuzzing of every tool in the registry. Inputs come from each tool's own published
// input schema (z.toJSONSchema(tool.input), the same JSON Schema OpenAPI and MCP publish), converted to fast-check
// arbitraries by a small converter for the subset our tools use. Each tool gets valid inputs and mutated ones
// (a required field dropped, an unknown field, wrong types, boundary numbers, NUL bytes, lone surrogates, huge
// strings, non-object bodies, poisoned or truncated JSON). Every call goes over REST with an all-scopes key and must:
//   - never answer 5xx;
//   - fail only as problem+json with a `code` the tool declares (or every call can meet) whose status matches
//     docs/errors.md;
//   - succeed only as exactly { ok, result } (or the dry-run shape { ok, result, dryRun, changes }), with a result
//     that parses with the tool's output schema and holds no key outside it;
//   - leave the database unchanged when it fails, when it is a dry run, and when the tool is a read: a row trigger
//     on every table (audit entries included) counts committed inserts, updates and deletes per table, so any
//     committed change, even one that restores the same content, shows. The counts live in the same transactions
//     as the changes, so a rolled-back write counts nothing. O(1) per call, also after thousands of writes.
// The schema is the validator, checked in both directions against both published schemas of the tool (the MCP
// inputSchema and the OpenAPI request body, compiled with Ajv, formats asserted): an input valid under them is never
// answered 400 invalid_request (only a documented domain error or success), and every input answered 200 is valid
// under them. Write calls also send an Idempotency-Key drawn from the header's published pattern.
// Runs per tool and kind: FUZZ_RUNS (default 15; `npm run fuzz` runs 2000). FUZZ_SEED replays a reported failure.
// The counts of both directions are printed at the end; FUZZ_STATS=1 also prints the outcomes per tool.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { seedDemo } from '../../src/cli/seed/index.ts';
import { PROBLEMS } from '../../src/errors.ts';
import { EVENT_DEFINITIONS } from '../../src/events/catalogue.ts';
import { buildDocument } from '../../src/openapi/build-document.ts';
import type { Tool } from '../../src/registry/define-tool.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { problemCodesOf } from '../../src/registry/tool-problems.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { makeDiscount, makeOrder } from '../helpers/factories.ts';
import { assertNothingInternal, PROBLEM_KEYS } from '../helpers/problem.ts';
import { sendJson, startLocalServer, type LocalServer } from '../outbound/local-server.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 15);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const TEST_TIMEOUT = 30_000 + RUNS * 400;

// ---------------------------------------------------------------------------------------------------------
// JSON Schema (the subset z.toJSONSchema emits for our tools) → fast-check arbitraries

type Schema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minProperties?: number;
  propertyNames?: Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
};

/** Existing values for reference fields (slugs, ids, codes), by property name, so calls reach the handlers. */
type Pools = Record<string, readonly string[]>;

const SAFE = Number.MAX_SAFE_INTEGER;
const clean = (s: string) => !s.includes('\u0000');

function stringArb(s: Schema, pool: readonly string[] | undefined, urlish = false): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? 200;
  const fits = (v: string) => v.length >= min && v.length <= max;
  let gen: fc.Arbitrary<string>;
  if (s.format === 'email' && !s.pattern) {
    gen = fc.emailAddress().filter(fits);
  } else if (s.format === 'date-time') {
    gen = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  } else if (s.format === 'uri' || (urlish && !s.pattern)) {
    // https URLs (also for untyped URL fields such as imageUrl), with a few that the URL checks must refuse.
    gen = fc.oneof(
      { weight: 4, arbitrary: fc.webUrl({ validSchemes: ['https'] }) },
      { weight: 1, arbitrary: fc.constantFrom('https://127.0.0.1/a.jpg', 'http://images.example.com/a.jpg', 'https://u:p@images.example.com/a.jpg', 'https://localhost/a.png') },
    ).filter(fits);
  } else if (s.pattern) {
    gen = matching(s.pattern, Math.min(max, 60)).filter(fits);
  } else {
    const short = Math.min(max, Math.max(min, 40));
    gen = fc.oneof(
      { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: short, unit: 'grapheme-ascii' }).filter(clean) },
      { weight: 2, arbitrary: fc.string({ minLength: min, maxLength: short, unit: 'grapheme' }).filter((v) => clean(v) && fits(v)) },
      // The bounds themselves.
      { weight: 1, arbitrary: fc.constantFrom('a'.repeat(min), 'a'.repeat(max)) },
    );
  }
  return pool && pool.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool) }, { weight: 2, arbitrary: gen }) : gen;
}

/**
 * Strings matching a published pattern (ECMAScript, unicode mode as JSON Schema validators run it). fast-check
 * cannot generate from lookaheads, so they are dropped for generation and the full pattern filters the result.
 */
function matching(pattern: string, maxLength: number): fc.Arbitrary<string> {
  const full = new RegExp(pattern, 'u');
  const generable = new RegExp(pattern.replace(/\(\?[!=][^)]*\)/g, ''));
  return fc.stringMatching(generable, { maxLength }).filter((v) => full.test(v));
}

function integerArb(s: Schema): fc.Arbitrary<number> {
  const min = Math.max(s.minimum ?? -SAFE, s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -SAFE);
  const max = Math.min(s.maximum ?? SAFE, s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : SAFE);
  const small = fc.integer({ min: Math.max(min, Math.min(max, -1000)), max: Math.min(max, Math.max(min, 1000)) });
  return fc.oneof({ weight: 4, arbitrary: small }, { weight: 1, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
}

function schemaToArb(s: Schema, pools: Pools, name = ''): fc.Arbitrary<unknown> {
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  // "At least one of these fields" (anyOf of bare `required`s next to the properties): one of them is made required.
  if (s.anyOf?.every((v) => Object.keys(v).length === 1 && v.required)) {
    const { anyOf, ...rest } = s;
    return fc.oneof(...anyOf.map((v) => schemaToArb({ ...rest, required: [...(rest.required ?? []), ...(v.required ?? [])] }, pools, name)));
  }
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return fc.oneof(...variants.map((v) => schemaToArb(v, pools, name)));
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type) => schemaToArb({ ...s, type }, pools, name)));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArb(s);
    case 'number':
      return fc.double({ min: s.minimum ?? -1e15, max: s.maximum ?? 1e15, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringArb(s, pools[name], /url|image|src|href/i.test(name));
    case 'array':
      return fc.array(schemaToArb(s.items ?? {}, pools, name), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, Math.max(s.minItems ?? 0, 4)) });
    case 'object': {
      if (s.properties && Object.keys(s.properties).length > 0) {
        const model = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, schemaToArb(v, pools, k)]));
        const record = fc.record(model, { requiredKeys: s.required ?? [] });
        return s.minProperties ? record.filter((r) => Object.keys(r).length >= (s.minProperties ?? 0)) : record;
      }
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const keys = s.propertyNames ? (stringArb(s.propertyNames, undefined) as fc.Arbitrary<string>) : fc.string({ minLength: 1, maxLength: 20 });
        return fc.dictionary(keys, schemaToArb(s.additionalProperties, pools), { maxKeys: 4 });
      }
      return s.additionalProperties === false ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
    }
    default:
      // {} (z.unknown()): any JSON value.
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * Steers valid inputs so that writes mostly really happen and reach the handler past one rule the JSON Schema cannot
 * express: `dryRun` is dropped half of the time (about one call in eight stays a dry run), and an update's
 * `patch.slug`, only accepted when it repeats the current slug (else 422 slug_immutable), is dropped or set to the
 * top-level slug 2 times in 3.
 */
function steer(input: Json, slugPick: number, dryRunPick: boolean): Json {
  const patch = input.patch;
  if (patch !== null && typeof patch === 'object' && 'slug' in patch && slugPick < 2) {
    if (slugPick === 0) delete (patch as Json).slug;
    else (patch as Json).slug = input.slug;
  }
  if (dryRunPick) delete input.dryRun;
  return input;
}

/** Valid inputs of a tool: its schema's arbitrary, steered. */
function validInputs(schema: Schema, pools: Pools): fc.Arbitrary<Json> {
  return fc
    .tuple(schemaToArb(schema, pools) as fc.Arbitrary<Json>, fc.nat(2), fc.boolean())
    .map(([input, slugPick, dryRunPick]) => steer(input, slugPick, dryRunPick));
}

// ---------------------------------------------------------------------------------------------------------
// Mutations of a valid input

type Sent = { body: unknown } | { raw: string };
type Json = Record<string, unknown>;
type Slot = { parent: Json | unknown[]; key: string | number; value: unknown };

/** Every (parent, key) in a JSON value, depth-first; the root object's own fields come first. */
function slots(value: unknown, out: Slot[] = []): Slot[] {
  if (Array.isArray(value)) value.forEach((v, i) => { out.push({ parent: value, key: i, value: v }); slots(v, out); });
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) { out.push({ parent: value as Json, key: k, value: v }); slots(v, out); }
  return out;
}
const set = (slot: Slot, v: unknown) => { (slot.parent as Record<string | number, unknown>)[slot.key] = v; };

const WRONG_TYPES: unknown[] = ['a string', 42, -1, 1.5, true, false, null, [], {}, [1, 'x'], { nested: { deep: [null] } }];
const BOUNDARY_NUMBERS: unknown[] = [9007199254740992, -9007199254740992, 9007199254740991, 1e308, -1e308, -1, 0, -0, 0.5, 2147483648, -2147483649, 1e-7];
const NASTY_STRINGS: unknown[] = ['\u0000', 'nul\u0000byte', '\ud800', 'lone \udfff surrogate', 'x'.repeat(100_000), '', ' ', '%', '_', '\\', "' OR 1=1 --", '<script>alert(1)</script>', '../../etc/passwd', '\u202e\u0301'];

const MUTATIONS = [
  'drop-required', 'drop-any', 'unknown-field', 'unknown-nested', 'wrong-type', 'boundary-number', 'nasty-string', 'confirm-variant',
  'dry-run-type', 'not-object', 'huge-body', 'proto', 'truncated',
] as const;
type Mutation = (typeof MUTATIONS)[number];

function mutate(required: readonly string[], input: Json, kind: Mutation, pick: number, extra: unknown): Sent {
  const body = structuredClone(input);
  const all = slots(body);
  const choose = <T>(items: readonly T[]): T | undefined => (items.length ? items[pick % items.length] : undefined);
  /** One of `values` into a slot of `preferred` (else any slot), or into `body[fallback]` when the body is empty. */
  const plant = (preferred: Slot[], values: readonly unknown[], fallback: string, combine = (_old: unknown, v: unknown) => v): Sent => {
    const value = values[(pick >> 3) % values.length];
    const slot = choose(preferred) ?? choose(all);
    if (slot) set(slot, combine(slot.value, value));
    else body[fallback] = value;
    return { body };
  };
  switch (kind) {
    case 'drop-required': {
      const k = choose(required.filter((r) => r in body)) ?? choose(Object.keys(body));
      if (k !== undefined) delete body[k];
      return { body };
    }
    case 'drop-any': {
      const slot = choose(all.filter((s) => !Array.isArray(s.parent)));
      if (slot) delete (slot.parent as Json)[slot.key as string];
      return { body };
    }
    case 'unknown-field':
      return { body: { ...body, [choose(['extra', 'id', 'createdAt', 'usageCount', 'storeId', 'isAdmin', 'deletedAt']) ?? 'extra']: extra } };
    case 'unknown-nested': {
      const objects = all.filter((s) => s.value !== null && typeof s.value === 'object' && !Array.isArray(s.value));
      const slot = choose(objects);
      if (slot) (slot.value as Json).__fuzzUnknown = extra;
      else body.__fuzzUnknown = extra;
      return { body };
    }
    case 'wrong-type':
      return plant(all, WRONG_TYPES, '__fuzzUnknown');
    case 'boundary-number':
      return plant(all.filter((s) => typeof s.value === 'number'), BOUNDARY_NUMBERS, 'limit');
    case 'nasty-string':
      return plant(all.filter((s) => typeof s.value === 'string'), NASTY_STRINGS, 'q', (old, value) =>
        typeof old === 'string' && (pick & 4) ? `${old}${value as string}` : value);
    case 'confirm-variant': {
      const variants: unknown[] = ['true', 1, 'false', false, null, 'yes', [true], { value: true }];
      const v = variants[pick % (variants.length + 1)];
      if (v === undefined) delete body.confirm;
      else body.confirm = v;
      if (pick & 8) delete body.dryRun;
      return { body };
    }
    case 'dry-run-type':
      body.dryRun = choose(['true', 1, 0, null, 'false', [], {}]);
      return { body };
    case 'not-object':
      return { raw: choose(['[]', '[{}]', '"x"', 'null', '42', 'true', JSON.stringify([body])]) ?? 'null' };
    case 'huge-body':
      return { body: { ...body, padding: 'x'.repeat(1_100_000) } };
    case 'proto': {
      const json = JSON.stringify(body);
      const poison = choose(['"__proto__":{"isAdmin":true}', '"constructor":{"prototype":{"isAdmin":true}}']) ?? '';
      return { raw: json === '{}' ? `{${poison}}` : json.replace('{', `{${poison},`) };
    }
    case 'truncated': {
      const json = JSON.stringify(body);
      return { raw: json.slice(0, Math.max(1, pick % json.length)) };
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// The published schemas, compiled: the MCP inputSchema and the OpenAPI request body of each tool, and the
// Idempotency-Key header parameter

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
const OPENAPI = buildDocument(TOOLS) as unknown as {
  paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }>;
  components: { parameters: { IdempotencyKey: { schema: { pattern: string } } } };
};
const HEADER_SCHEMA = OPENAPI.components.parameters.IdempotencyKey.schema;
const validHeader = ajv.compile(HEADER_SCHEMA);

/** Both published input schemas of a tool, as one check. */
function publishedValidator(tool: Tool): (input: unknown) => boolean {
  const validators: ValidateFunction[] = [
    ajv.compile(z.toJSONSchema(tool.input, { io: 'input' })),
    ajv.compile(OPENAPI.paths[`/api/v1/tools/${tool.name}`].post.requestBody.content['application/json'].schema),
  ];
  return (input) => validators.every((v) => v(input));
}

const INVALID_HEADERS = ['', ' ', 'a b', '""', 'é', '"a b"', 'x'.repeat(256)];
/** An Idempotency-Key for a write: absent, drawn from the published pattern, or (mutated runs only) one it refuses. */
const headerArb = (tool: Tool, invalidToo: boolean): fc.Arbitrary<string | undefined> =>
  !tool.write
    ? fc.constant(undefined)
    : fc.oneof(
        fc.constant(undefined),
        matching(HEADER_SCHEMA.pattern, 60),
        ...(invalidToo ? [fc.constantFrom(...INVALID_HEADERS)] : []),
      );

/** What both directions of "the schema is the validator" saw, printed at the end of the run. */
const directions = { schemaValidSent: 0, schemaValidAccepted: 0, schemaValidRefused: {} as Record<string, number>, acceptedChecked: 0, schemaInvalidSent: 0 };

// ---------------------------------------------------------------------------------------------------------
// The app, a seeded database and the database's change counters

let t: TestApp;
let imageProvider: LocalServer;
let key: string;
let keyId: string;

beforeAll(async () => {
  // images.search_stock asks a stock photo provider: a local one answering with Openverse's documented example.
  const openverse = JSON.parse(readFileSync(new URL('../tools/images-fixtures/openverse-search.json', import.meta.url), 'utf8')).response;
  imageProvider = await startLocalServer((_req, res) => sendJson(res, 200, openverse));
  t = await createTestApp({
    env: {
      RATE_LIMIT_AUTH_MAX: '100000000', RATE_LIMIT_ANON_MAX: '100000000', RATE_LIMIT_PREAUTH_MAX: '100000000',
      OUTBOUND_ALLOW_PRIVATE: '1', OPENVERSE_API_URL: imageProvider.origin,
    },
  });
  ({ key, id: keyId } = await createKey(t.db, { name: 'fuzzer', scopes: [...SCOPES] }));
  const tables = await t.db.$queryRaw<{ name: string }[]>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY tablename`;
  await t.db.$executeRawUnsafe(`CREATE TABLE "_fuzz_changes" (tbl text PRIMARY KEY, n bigint NOT NULL)`);
  await t.db.$executeRawUnsafe(`
    CREATE FUNCTION "_fuzz_count"() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO "_fuzz_changes" (tbl, n) VALUES (TG_TABLE_NAME, 1) ON CONFLICT (tbl) DO UPDATE SET n = "_fuzz_changes".n + 1;
      RETURN NULL;
    END $$`);
  // Left out as bookkeeping, not changes: ApiKey (authenticating updates lastUsedAt) and IdempotencyRecord (a call
  // with an Idempotency-Key stores its answer, a refusal included, so that a retry replays it).
  for (const { name } of tables.filter((tbl) => tbl.name !== 'ApiKey' && tbl.name !== 'IdempotencyRecord')) {
    await t.db.$executeRawUnsafe(
      `CREATE TRIGGER "_fuzz_count" AFTER INSERT OR UPDATE OR DELETE ON "${name.replace(/"/g, '""')}" FOR EACH ROW EXECUTE FUNCTION "_fuzz_count"()`,
    );
  }
  await seedDemo(t.db);
  // A few audit entries, a feature flag and a discount made through the API, so every pool has members.
  await t.call('products.update', { slug: (await t.db.product.findFirstOrThrow()).slug, patch: { stock: 7 } }, key);
  await t.call('features.set', { key: 'fuzz.flag', enabled: true }, key);
  await t.call('discounts.create', { code: 'FUZZ10', type: 'percent', value: 10 }, key);
}, 60_000);

afterAll(async () => {
  console.log(`[fuzz] the schema is the validator: ${JSON.stringify(directions)}`);
  if (process.env.FUZZ_STATS) for (const [name, counts] of stats) console.log(`[fuzz] ${name}: ${JSON.stringify(counts)}`);
  await t?.close();
  await imageProvider?.close();
});

/** The fingerprint after the previous call: nothing else writes between two calls of one property run. */
let lastFingerprint: Record<string, string> | undefined;

async function fingerprint(): Promise<Record<string, string>> {
  const [{ f }] = await t.db.$queryRaw<{ f: Record<string, string> }[]>`
    SELECT coalesce(json_object_agg(tbl, n::text ORDER BY tbl), '{}'::json) AS f FROM "_fuzz_changes"`;
  return f;
}

/** Set when a destructive call succeeded: the demo data is seeded again before the next tool. */
let dirty = false;
/** Status codes per tool and kind of input, printed with FUZZ_STATS=1 (shows how often calls reach the handlers). */
const stats = new Map<string, Record<string, number>>();

/** Puts back what earlier tools' destructive calls removed, and gathers the reference pools for the next tool. */
async function prepare(tool: Tool): Promise<Pools> {
  if (dirty) await seedDemo(t.db);
  dirty = false;
  lastFingerprint = undefined;
  const products = await t.db.product.findMany({ where: { deletedAt: null }, select: { id: true, slug: true, stock: true } });
  // Issue 27: a cart line written by product alone gets the product's variant only while it has exactly one.
  const single = await t.db.product.findMany({ where: { deletedAt: null, options: { none: {} } }, select: { id: true } });
  if (single.length > 0) {
    await t.db.cart.create({ data: { apiKeyId: keyId, items: { create: [{ productId: single[0].id, quantity: 1n }] } } });
    await t.db.cart.create({ data: { apiKeyId: keyId, items: { create: single.slice(0, 3).map((p) => ({ productId: p.id, quantity: 1n })) } } });
    await makeOrder(t.db, { items: [{ productId: single[0].id, quantity: 1 }] });
  }
  await makeDiscount(t.db, { usageLimit: 3 });
  // A webhook endpoint made by the fuzzer's key, so the webhooks.* tools that name one reach their handlers.
  if ((await t.db.webhookEndpoint.count()) === 0) {
    await t.db.webhookEndpoint.create({
      data: { id: 'we_fuzz', url: 'https://hooks.example.com/in', events: ['*'], secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, creatorKeyId: keyId },
    });
  }
  // A shipping rate, so shipping.delete_rate reaches its handler (a clashing pair is refused: its level is the fuzzer's own).
  if ((await t.db.shippingRate.count()) === 0) {
    await t.db.shippingRate.create({ data: { id: 'fuzz-rate', title: 'Fuzz', serviceLevel: 'fuzz-level', priceDkk: 500n } });
  }
  const [categories, pages, services, orders, discounts, carts, audits, features, endpoints, events, rates, variants] = await Promise.all([
    t.db.category.findMany({ select: { id: true, slug: true } }),
    t.db.page.findMany({ select: { slug: true } }),
    t.db.serviceOffering.findMany({ select: { slug: true } }),
    t.db.order.findMany({ select: { id: true, email: true }, take: 20, orderBy: { createdAt: 'desc' } }),
    t.db.discountCode.findMany({ select: { code: true }, take: 20 }),
    t.db.cart.findMany({ where: { apiKeyId: keyId, status: 'open' }, select: { id: true }, take: 20, orderBy: { createdAt: 'desc' } }),
    t.db.auditEntry.findMany({ select: { id: true, at: true, entityId: true, tool: true }, take: 20, orderBy: { at: 'desc' } }),
    t.db.featureFlag.findMany({ select: { key: true } }),
    t.db.webhookEndpoint.findMany({ select: { id: true } }),
    t.db.webhookEvent.findMany({ select: { id: true }, take: 20, orderBy: { createdAt: 'desc' } }),
    t.db.shippingRate.findMany({ select: { id: true } }),
    t.db.productVariant.findMany({ where: { deletedAt: null, product: { deletedAt: null } }, select: { id: true }, take: 20 }),
  ]);
  // `slug` names the entity of the tool's own domain; a create tool gets fresh slugs (an existing one is a plain 409).
  const domain = tool.name.split('.')[0];
  const slugsOf: Record<string, string[]> = {
    products: products.map((p) => p.slug),
    categories: categories.map((c) => c.slug),
    pages: pages.map((p) => p.slug),
    services: services.map((s) => s.slug),
    site: [...pages.map((p) => p.slug), ...services.map((s) => s.slug)],
  };
  return {
    slug: tool.name.endsWith('.create') ? [] : (slugsOf[domain] ?? []),
    // cart.update_item needs a product that is in the cart: the carts made above hold the first three.
    productSlug: (domain === 'cart' ? products.slice(0, 3) : products).map((p) => p.slug),
    productSlugs: products.map((p) => p.slug),
    categorySlug: categories.map((c) => c.slug),
    categorySlugs: categories.map((c) => c.slug),
    categoryId: categories.map((c) => c.id),
    orderId: orders.map((o) => o.id),
    email: orders.map((o) => o.email),
    code: discounts.map((d) => d.code),
    discountCode: discounts.map((d) => d.code),
    cartId: carts.map((c) => c.id),
    auditId: audits.map((a) => a.id),
    entityId: audits.map((a) => a.entityId),
    tool: audits.map((a) => a.tool),
    key: features.map((f) => f.key),
    // A bare `id` is a webhook endpoint's or a shipping rate's, by the tool's domain.
    id: domain === 'shipping' ? rates.map((r) => r.id) : endpoints.map((e) => e.id),
    freeForVariantIds: variants.map((v) => v.id),
    endpointId: endpoints.map((e) => e.id),
    eventId: events.map((e) => e.id),
    events: ['*', 'order.*', 'feature.*', ...EVENT_DEFINITIONS.map((d) => d.type)],
    cursor: audits.map((a) => Buffer.from(`${a.at.getTime()}.${a.id}`).toString('base64url')),
  };
}

// ---------------------------------------------------------------------------------------------------------
// One call and its invariants

const SUCCESS_KEYS = ['ok', 'result'];
const DRY_RUN_KEYS = ['changes', 'dryRun', 'ok', 'result'];
const CHANGE_KEYS = new Set(['entityType', 'entityId', 'before', 'after', 'meta', 'revertOf']);

async function callAndCheck(tool: Tool, valid: (input: unknown) => boolean, sent: Sent, header: string | undefined, kind: string): Promise<void> {
  const payload = 'raw' in sent ? sent.raw : JSON.stringify(sent.body);
  const label = `${tool.name} ${payload.length > 400 ? `${payload.slice(0, 400)}… (${payload.length} chars)` : payload}${header === undefined ? '' : ` Idempotency-Key: ${JSON.stringify(header)}`}`;
  const before = lastFingerprint ?? (await fingerprint());
  const res = await t.call(tool.name, payload, key, header === undefined ? {} : { headers: { 'idempotency-key': header } });
  const sentJson = parsedOrUndefined(payload);
  const schemaValid = sentJson.ok && valid(sentJson.value) && (header === undefined || validHeader(header));
  const after = await fingerprint();
  lastFingerprint = after;

  expect(res.statusCode, `${label} → ${res.statusCode} ${res.body.slice(0, 500)}`).toBeLessThan(500);
  const body = res.json() as Record<string, unknown>;
  const counts = stats.get(`${tool.name} ${kind}`) ?? {};
  const outcome = res.statusCode === 200 ? (body.dryRun === true ? '200 dry run' : '200') : `${res.statusCode} ${String(body.code)}`;
  counts[outcome] = (counts[outcome] ?? 0) + 1;
  stats.set(`${tool.name} ${kind}`, counts);
  if (res.statusCode === 200 && tool.annotations.destructiveHint && body.dryRun !== true) dirty = true;

  if (schemaValid) {
    directions.schemaValidSent++;
    if (res.statusCode === 200) directions.schemaValidAccepted++;
    else directions.schemaValidRefused[String(body.code)] = (directions.schemaValidRefused[String(body.code)] ?? 0) + 1;
    // Valid under the published schemas: success or a domain error, never a complaint about the shape.
    expect(['invalid_request', 'invalid_idempotency_key', 'invalid_body', 'invalid_json'], `${label}: valid under the published schema`).not.toContain(body.code);
  } else {
    directions.schemaInvalidSent++;
  }
  if (res.statusCode === 200) {
    directions.acceptedChecked++;
    expect(schemaValid, `${label}: accepted, but not valid under the published schema`).toBe(true);
  }

  if (res.statusCode !== 200) {
    expect(res.headers['content-type'], label).toMatch(/^application\/problem\+json/);
    expect(Object.keys(body).sort(), label).toEqual(PROBLEM_KEYS);
    const code = body.code as keyof typeof PROBLEMS;
    expect(Object.hasOwn(PROBLEMS, code), `${label}: unknown code ${String(code)}`).toBe(true);
    expect(problemCodesOf(tool).has(code), `${label}: ${String(code)} is not declared by ${tool.name}`).toBe(true);
    expect(body.status, label).toBe(PROBLEMS[code].status);
    expect(res.statusCode, label).toBe(PROBLEMS[code].status);
    assertNothingInternal(res.body, [payload, header ?? '']);
    expect(after, `${label}: a failed call (${String(code)}) changed the database`).toEqual(before);
    return;
  }

  const dryRun = body.dryRun === true;
  expect(Object.keys(body).sort(), label).toEqual(dryRun ? DRY_RUN_KEYS : SUCCESS_KEYS);
  expect(body.ok, label).toBe(true);
  const parsed = tool.output.safeParse(body.result);
  expect(parsed.success, `${label}: result does not parse with the output schema: ${parsed.error?.message}`).toBe(true);
  // Parsing strips undeclared keys, so equality means the result held none.
  expect(parsed.data, `${label}: result has keys outside the output schema`).toEqual(body.result);
  if (dryRun) {
    expect(tool.write, label).toBe(true);
    expect(Array.isArray(body.changes), label).toBe(true);
    for (const change of body.changes as Record<string, unknown>[]) {
      expect(Object.keys(change).every((k) => CHANGE_KEYS.has(k)), `${label}: change keys ${Object.keys(change)}`).toBe(true);
      expect(typeof change.entityType === 'string' && typeof change.entityId === 'string', label).toBe(true);
      expect(tool.auditedTypes.has(String(change.entityType)), `${label}: audits undeclared ${String(change.entityType)}`).toBe(true);
    }
  }
  if (!tool.write || dryRun) expect(after, `${label}: a ${dryRun ? 'dry run' : 'read'} changed the database`).toEqual(before);
}

function parsedOrUndefined(payload: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(payload) };
  } catch {
    return { ok: false };
  }
}

// ---------------------------------------------------------------------------------------------------------

const params = (): fc.Parameters<unknown> => ({ numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true });

it('the oracle: change counters see a committed write (also a same-value update), not a rolled-back one', async () => {
  const start = await fingerprint();
  await t.db.$transaction(async (tx) => {
    await tx.featureFlag.create({ data: { key: 'oracle.rolled-back' } });
    throw new Error('roll back');
  }).catch(() => {});
  expect(await fingerprint()).toEqual(start);
  await t.db.featureFlag.updateMany({ where: { key: 'fuzz.flag' }, data: { enabled: true } });
  expect(await fingerprint()).not.toEqual(start);
  lastFingerprint = undefined;
});

describe.each(TOOLS.map((tool) => [tool.name, tool] as const))('fuzz %s', (_name, tool) => {
  const schema = z.toJSONSchema(tool.input, { io: 'input' }) as Schema;
  const required = schema.required ?? [];
  const published = publishedValidator(tool);

  it(`${tool.name}: inputs generated from its schema keep every invariant`, async () => {
    const pools = await prepare(tool);
    const valid = validInputs(schema, pools);
    await fc.assert(
      fc.asyncProperty(valid, headerArb(tool, false), (input, header) => callAndCheck(tool, published, { body: input }, header, 'valid')),
      params(),
    );
  }, TEST_TIMEOUT);

  it(`${tool.name}: mutated inputs keep every invariant`, async () => {
    const pools = await prepare(tool);
    const valid = validInputs(schema, pools);
    const mutated = fc
      .tuple(valid, fc.constantFrom(...MUTATIONS), fc.nat(), fc.jsonValue({ maxDepth: 1 }))
      .map(([input, kind, pick, extra]) => mutate(required, input, kind, pick, extra));
    await fc.assert(
      fc.asyncProperty(mutated, headerArb(tool, true), (sent, header) => callAndCheck(tool, published, sent, header, 'mutated')),
      params(),
    );
  }, TEST_TIMEOUT);
});
