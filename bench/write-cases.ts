// The write cases (largest catalog only): the fixtures they consume (open carts written set-based, one per checkout;
// products with known stock), the request streams that hand each request its own cart, code or Idempotency-Key,
// the check that service and baseline answer a checkout alike, and the check after the hot-product run that
// nothing was oversold.
import { randomBytes } from 'node:crypto';
import type { AutocannonRequest } from 'autocannon';
import pg from 'pg';
import { SINGLE_VARIANT } from './seed.ts';
import { settings } from './settings.ts';

export type NextRequest = { body: string; headers?: Record<string, string> };
export type Stream = () => NextRequest;

const CONTACT = { email: 'bench@example.com', shippingName: 'Bench Buyer', shippingAddress: 'Benchvej 1', shippingZip: '8000', shippingCity: 'Aarhus' };

/** Enough carts for one leg of a checkout case at up to this many orders per second (BENCH_MAX_WRITE_RATE). */
const MAX_RATE = Number(process.env.BENCH_MAX_WRITE_RATE ?? 2500);
export const cartsPerLeg = () => Math.ceil(MAX_RATE * (settings.warmupS + settings.durationS + 2));

/** A run-unique prefix, so Idempotency-Keys and codes never repeat across runs on one database. */
const RUN = randomBytes(3).toString('hex');

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * n open carts of the key, cart i holding one unit of products[i % products.length] (none: empty) — of the variant
 * variants[i % …] when given (a product sold in several), else of its one variant; ids in order.
 */
export async function makeCarts(url: string, keyId: string, label: string, n: number, productIds: readonly string[], variantIds?: readonly string[]): Promise<string[]> {
  const prefix = `bench-${RUN}-${label}-`;
  await withClient(url, async (c) => {
    await c.query(
      `INSERT INTO "Cart" (id, "apiKeyId", status, "createdAt", "updatedAt")
       SELECT $1 || i, $2, 'open', now(), now() FROM generate_series(1, $3::int) i`,
      [prefix, keyId, n],
    );
    if (productIds.length === 0) return;
    await c.query(
      `INSERT INTO "CartItem" (id, "cartId", "productId", "variantId", quantity)
       SELECT $1 || i || '-l', $1 || i, ($2::text[])[1 + (i - 1) % cardinality($2::text[])], ($4::text[])[1 + (i - 1) % cardinality($2::text[])], 1
       FROM generate_series(1, $3::int) i`,
      [prefix, productIds, n, variantIds ?? null],
    );
  });
  return Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
}

/** Live products (a deterministic sample, skipping `skip`), given `stock` units each; their ids and slugs. */
export async function stockedProducts(url: string, n: number, stock: number, skip = 0): Promise<{ ids: string[]; slugs: string[] }> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ id: string; slug: string }>(
      `UPDATE "Product" SET stock = $3 WHERE id IN (
         SELECT id FROM "Product" WHERE "deletedAt" IS NULL AND ${SINGLE_VARIANT} ORDER BY md5(id || 'write') OFFSET $1 LIMIT $2)
       RETURNING id, slug`,
      [skip, n, stock],
    );
    return { ids: rows.map((r) => r.id), slugs: rows.map((r) => r.slug) };
  });
}

/** Every live variant of the products sold in several, given `stock` units each; their ids and products. */
async function stockedVariants(url: string, stock: number): Promise<{ ids: string[]; productIds: string[] }> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ id: string; productId: string }>(
      // md5 order: the carts of one leg spread over many products, not the 20 variants of a few.
      `WITH stocked AS (
         UPDATE "ProductVariant" v SET stock = $1 FROM "Product" p
         WHERE p.id = v."productId" AND p."deletedAt" IS NULL AND v."deletedAt" IS NULL AND NOT ${SINGLE_VARIANT.replaceAll('"Product".id', 'p.id')}
         RETURNING v.id, v."productId")
       SELECT * FROM stocked ORDER BY md5(id)`,
      [stock],
    );
    return { ids: rows.map((r) => r.id), productIds: rows.map((r) => r.productId) };
  });
}

/** One checkout per cart, in order, each with its own Idempotency-Key; past the last cart it says so once. */
export function checkoutStream(carts: readonly string[], label: string): Stream {
  let next = 0;
  return () => {
    const i = next++;
    if (i === carts.length) console.error(`!! ${label}: out of carts after ${i} checkouts; raise BENCH_MAX_WRITE_RATE`);
    return { body: JSON.stringify({ cartId: carts[i % carts.length], ...CONTACT }), headers: { 'idempotency-key': `${RUN}-${label}-${i}` } };
  };
}

/**
 * A case of several requests per unit of work: the requests each connection sends in turn, built with the leg's
 * headers; what a later one needs of an earlier answer travels in autocannon's per-connection context.
 */
export type Flow = { requests: (headers: Record<string, string>) => AutocannonRequest[]; perUnit: number };

/**
 * The platform profile the UCP cases name: nothing listens there, so the service caches the platform as one without
 * webhooks on the first request (src/protocols/ucp/platform.ts) and never fetches it again during the run.
 */
const UCP_PROFILE = 'http://127.0.0.1:9/bench-platform.json';
/** What makes a UCP checkout ready for completion: the buyer, the address and the shop's one option. */
const UCP_READY = {
  buyer: { email: CONTACT.email, first_name: 'Bench', last_name: 'Buyer' },
  fulfillment: {
    methods: [{
      type: 'shipping', selected_destination_id: 'dest_1', groups: [{ selected_option_id: 'standard' }],
      destinations: [{ id: 'dest_1', street_address: CONTACT.shippingAddress, address_locality: CONTACT.shippingCity, postal_code: CONTACT.shippingZip, address_country: 'DK' }],
    }],
  },
};
/** The test payment handler's paying token (the service runs with NODE_ENV=development, where it is offered). */
const UCP_PAYMENT = JSON.stringify({
  payment: { instruments: [{ id: 'instr_1', handler_id: 'mock_payment_handler', type: 'card', selected: true, credential: { type: 'token', token: 'success_token' } }] },
});

/** A protocol's checkout session as the bench drives it: its headers, the create (201) and the completion. */
type SessionProtocolDef = {
  headers: Record<string, string>;
  path: string;
  createBody: (variantId: string) => string;
  completeBody: string;
};

/**
 * One checkout session per unit (docs/agentic-checkout.md): created ready for one unit of the next variant (201),
 * then completed (…/{id}/complete), each with its own Idempotency-Key. Past the last variant of a single pass it
 * says so once (the hot variant's stock is one per unit).
 */
function sessionFlow(p: SessionProtocolDef, variants: readonly string[], label: string, units: number): Flow {
  let next = 0;
  return {
    perUnit: 2,
    requests: (headers) => {
      const h = { ...headers, ...p.headers };
      return [
        {
          method: 'POST', path: p.path, headers: h,
          setupRequest: (req) => {
            const i = next++;
            if (i === units) console.error(`!! ${label}: out of stock after ${i} sessions; raise BENCH_MAX_WRITE_RATE`);
            return { ...req, body: p.createBody(variants[i % variants.length]), headers: { ...h, 'idempotency-key': `${RUN}-${label}-${i}` } };
          },
          onResponse: (status, body, context) => {
            context.id = status === 201 ? (JSON.parse(body) as { id: string }).id : 'not-created';
          },
        },
        {
          method: 'POST', path: `${p.path}/not-created/complete`, headers: h, body: p.completeBody,
          setupRequest: (req, context) => {
            const id = String(context.id);
            return { ...req, path: `${p.path}/${id}/complete`, body: p.completeBody, headers: { ...h, 'idempotency-key': `${RUN}-${label}-${id}` } };
          },
        },
      ];
    },
  };
}

const UCP: SessionProtocolDef = {
  headers: { 'ucp-agent': `profile="${UCP_PROFILE}"` },
  path: '/ucp/checkout-sessions',
  createBody: (variantId) => JSON.stringify({ line_items: [{ item: { id: variantId }, quantity: 1 }], ...UCP_READY }),
  completeBody: UCP_PAYMENT,
};

/** A UCP checkout session per unit, completed with the test payment handler (the service runs as development). */
export const ucpSessionFlow = (variants: readonly string[], label: string, units = Infinity): Flow => sessionFlow(UCP, variants, label, units);

/**
 * ACP (2026-04-17): created with the buyer's address and e-mail (its cheapest option is chosen for it), completed
 * with a SharedPaymentToken the fake Stripe API charges; the order is placed paid, as every ACP completion's is.
 */
const ACP: SessionProtocolDef = {
  headers: { 'api-version': '2026-04-17' },
  path: '/acp/checkout_sessions',
  createBody: (variantId) => JSON.stringify({
    line_items: [{ id: variantId, quantity: 1 }],
    fulfillment_details: {
      name: CONTACT.shippingName, email: CONTACT.email,
      address: { name: CONTACT.shippingName, line_one: CONTACT.shippingAddress, city: CONTACT.shippingCity, postal_code: CONTACT.shippingZip, country: 'DK' },
    },
  }),
  completeBody: JSON.stringify({ payment_data: { handler_id: 'card_tokenized', instrument: { type: 'card', credential: { type: 'spt', token: 'spt_bench' } } } }),
};

export const acpSessionFlow = (variants: readonly string[], label: string): Flow => sessionFlow(ACP, variants, label, Infinity);

/**
 * Completions alone, of sessions made ready in setup, as the checkout case checks out carts made in setup: the
 * like-for-like comparison with checkout.create_order (docs/performance.md, "UCP sessions"). `prepare` creates one
 * session through the service, so its row is the service's own, then clones it in SQL: session i names
 * variants[i % …] and has the id `${prefix}${i}`. Each completion has its own Idempotency-Key.
 */
export type PreparedCompletions = { flow: Flow; prepare: (url: string, port: number, headers: Record<string, string>) => Promise<void> };

function preparedCompletions(p: SessionProtocolDef, variants: readonly string[], label: string, n: number): PreparedCompletions {
  const prefix = `${p.path.startsWith('/ucp') ? 'chk' : 'cs'}_bench${RUN}${label.replaceAll('-', '')}x`;
  let next = 0;
  const flow: Flow = {
    perUnit: 1,
    requests: (headers) => {
      const h = { ...headers, ...p.headers };
      return [{
        method: 'POST', path: `${p.path}/${prefix}0/complete`, headers: h, body: p.completeBody,
        setupRequest: (req) => {
          const i = next++;
          if (i === n) console.error(`!! ${label}: out of sessions after ${i} completions; raise BENCH_MAX_WRITE_RATE`);
          return { ...req, path: `${p.path}/${prefix}${i % n}/complete`, body: p.completeBody, headers: { ...h, 'idempotency-key': `${RUN}-${label}-${i}` } };
        },
      }];
    },
  };
  const prepare = async (url: string, port: number, headers: Record<string, string>) => {
    const res = await fetch(`http://127.0.0.1:${port}${p.path}`, {
      method: 'POST', body: p.createBody(variants[0]), headers: { ...headers, ...p.headers, 'idempotency-key': `${RUN}-${label}-template` },
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`${label}: the template session answered ${res.status}: ${text.slice(0, 300)}`);
    const { id } = JSON.parse(text) as { id: string };
    await withClient(url, (c) => c.query(
      // jsonb_populate_record: the template's row with its id and its one line's variant replaced, whatever the columns.
      `INSERT INTO "CheckoutSession"
       SELECT (jsonb_populate_record(t, jsonb_build_object(
                 'id', $2 || (i - 1),
                 'lines', jsonb_set(t.lines, '{0,variantId}', to_jsonb(($3::text[])[1 + (i - 1) % cardinality($3::text[])]))))).*
       FROM "CheckoutSession" t, generate_series(1, $4::int) i WHERE t.id = $1`,
      [id, prefix, variants, n],
    ));
  };
  return { flow, prepare };
}

export const ucpCompletions = (variants: readonly string[], label: string, n: number) => preparedCompletions(UCP, variants, label, n);
export const acpCompletions = (variants: readonly string[], label: string, n: number) => preparedCompletions(ACP, variants, label, n);

const hotVariant = async (url: string, productId: string, stock: number): Promise<HotVariant> =>
  ({ variantId: (await variantsOf(url, [productId]))[0], productId, stock, soldBefore: await soldBefore(url, productId) });

/** The one variant of each of these products (UCP line items name variants), in the same order. */
async function variantsOf(url: string, productIds: readonly string[]): Promise<string[]> {
  return withClient(url, async (c) => (await c.query<{ id: string }>(
    `SELECT v.id FROM unnest($1::text[]) WITH ORDINALITY p(id, n) JOIN "ProductVariant" v ON v."productId" = p.id AND v."deletedAt" IS NULL ORDER BY p.n`,
    [productIds],
  )).rows.map((r) => r.id));
}

/** cart.add_item over `carts`, a different product each time (a cart gathers a few lines over a run). */
export function addItemStream(carts: readonly string[], slugs: readonly string[]): Stream {
  let next = 0;
  return () => {
    const i = next++;
    return { body: JSON.stringify({ cartId: carts[i % carts.length], productSlug: slugs[(i * 7) % slugs.length], quantity: 1 }) };
  };
}

export function discountStream(): Stream {
  let next = 0;
  return () => ({ body: JSON.stringify({ code: `B${RUN}X${next++}`, type: 'percent', value: 10 }) });
}

/**
 * Service and baseline check out two like carts (same product and quantity): their answers must be the same bytes
 * once the order ids (generated, so different) are masked.
 */
export async function checkCheckoutIdentical(
  post: (side: 'service' | 'baseline', body: string, headers: Record<string, string>) => Promise<{ status: number; body: string }>,
  carts: { service: string; baseline: string },
): Promise<void> {
  const answers = await Promise.all((['service', 'baseline'] as const).map(async (side) => {
    const res = await post(side, JSON.stringify({ cartId: carts[side], ...CONTACT }), { 'idempotency-key': `${RUN}-check-${side}` });
    if (res.status !== 200) throw new Error(`checkout probe on the ${side} answered ${res.status}: ${res.body.slice(0, 300)}`);
    const orderId = (JSON.parse(res.body) as { result: { orderId: string } }).result.orderId;
    return res.body.replaceAll(orderId, '<orderId>');
  }));
  if (answers[0] !== answers[1]) throw new Error(`service and baseline answer a checkout differently:\n  service:  ${answers[0]}\n  baseline: ${answers[1]}`);
}

type Sales = { stock: string; sold: string; orders: string };
const salesOf = (c: pg.Client, productId: string) =>
  c.query<Sales>(
    `SELECT (SELECT stock FROM "Product" WHERE id = $1) AS stock,
            (SELECT coalesce(sum(quantity), 0) FROM "OrderItem" WHERE "productId" = $1) AS sold,
            (SELECT count(DISTINCT "orderId") FROM "OrderItem" WHERE "productId" = $1) AS orders`,
    [productId],
  ).then((r) => r.rows[0]);

/** The hot product's units already sold (the seeded orders) before the run: what checkNotOversold starts from. */
export const soldBefore = (url: string, productId: string) => withClient(url, async (c) => Number((await salesOf(c, productId)).sold));

/**
 * After the hot-product run: the units it sold (order lines, one unit per order) plus the stock left are exactly
 * the stock it started with, and the stock never went below zero.
 */
export async function checkNotOversold(url: string, hot: { productId: string; stock: number; soldBefore: number }): Promise<{ ok: boolean; detail: string }> {
  return withClient(url, async (c) => {
    const r = await salesOf(c, hot.productId);
    const stock = Number(r.stock);
    const sold = Number(r.sold) - hot.soldBefore;
    const ok = stock >= 0 && stock + sold === hot.stock;
    return { ok, detail: `${ok ? 'not oversold' : 'OVERSOLD OR LOST'}: ${sold} sold + ${stock} left = ${stock + sold} of ${hot.stock}` };
  });
}

export type WriteFixtures = {
  distinct: { service: string[]; baseline: string[]; stripe: string[] };
  /** Carts of one unit of a variant of a product sold in 20 (distinct variants, plenty of stock). */
  variants: { service: string[]; baseline: string[] };
  /** The products of the service's distinct-product carts (plenty of stock), for the soak's carts. */
  distinctProducts: string[];
  hot: Record<'service' | 'baseline', { carts: string[]; productId: string; stock: number; soldBefore: number }>;
  addCarts: string[];
  addSlugs: string[];
  /** Two like carts for the identity check of a checkout. */
  check: { service: string; baseline: string };
  /** UCP sessions: the variants of the distinct products, and a hot product's one variant with one unit per session. */
  ucp: { distinct: string[]; hot: HotVariant; hotCompletions: HotVariant };
};

type HotVariant = { variantId: string; productId: string; stock: number; soldBefore: number };

/**
 * The carts and stock the write cases consume: distinct products get plenty of stock (no checkout can run out), a
 * hot product exactly one unit per cart of its leg (so it could only be oversold by a bug). Set-based SQL: 2 × 2
 * legs × cartsPerLeg() carts take a few seconds.
 */
export async function prepareWrites(url: string, keyId: string): Promise<WriteFixtures> {
  const n = cartsPerLeg();
  // The shop's settings row, as a shop that sells has one (the service would create it with the same defaults).
  await withClient(url, (c) => c.query(`INSERT INTO "ShopSettings" (id, "updatedAt") VALUES (1, now()) ON CONFLICT (id) DO NOTHING`));
  const distinct = await stockedProducts(url, 4_000, 1_000_000_000);
  const half = distinct.ids.length / 2;
  const [hotS, hotB] = (await stockedProducts(url, 2, n, 4_000)).ids;
  const addSlugs = (await stockedProducts(url, 1_000, 1_000_000, 4_002)).slugs;
  const variants = await stockedVariants(url, 1_000_000_000);
  const [hotUcp, hotCompletions] = (await stockedProducts(url, 2, n, 5_002)).ids;
  const halfV = Math.floor(variants.ids.length / 2);
  const fixtures: WriteFixtures = {
    distinct: {
      service: await makeCarts(url, keyId, 'ds', n, distinct.ids.slice(0, half)),
      baseline: await makeCarts(url, keyId, 'db', n, distinct.ids.slice(half)),
      // The service's products again: the two legs run one after the other, and stock is plenty for both.
      stripe: await makeCarts(url, keyId, 'dst', n, distinct.ids.slice(0, half)),
    },
    variants: {
      service: await makeCarts(url, keyId, 'vs', n, variants.productIds.slice(0, halfV), variants.ids.slice(0, halfV)),
      baseline: await makeCarts(url, keyId, 'vb', n, variants.productIds.slice(halfV), variants.ids.slice(halfV)),
    },
    distinctProducts: distinct.ids.slice(0, half),
    hot: {
      service: { carts: await makeCarts(url, keyId, 'hs', n, [hotS]), productId: hotS, stock: n, soldBefore: await soldBefore(url, hotS) },
      baseline: { carts: await makeCarts(url, keyId, 'hb', n, [hotB]), productId: hotB, stock: n, soldBefore: await soldBefore(url, hotB) },
    },
    addCarts: await makeCarts(url, keyId, 'add', 10_000, []),
    addSlugs,
    check: { service: '', baseline: '' },
    ucp: {
      // The service's distinct products (plenty of stock for the checkouts and the sessions both).
      distinct: await variantsOf(url, distinct.ids.slice(0, half)),
      hot: await hotVariant(url, hotUcp, n),
      hotCompletions: await hotVariant(url, hotCompletions, n),
    },
  };
  [fixtures.check.service] = await makeCarts(url, keyId, 'cs', 1, distinct.ids.slice(0, 1));
  [fixtures.check.baseline] = await makeCarts(url, keyId, 'cb', 1, distinct.ids.slice(0, 1));
  return fixtures;
}
