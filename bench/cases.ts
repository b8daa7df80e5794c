// The cases: what each measures (path, rotating bodies, auth, MCP; or storefront pages by GET), the fixtures they draw from, and the checks run
// before measuring (the case works; service and baseline answer byte for byte alike).
import pg from 'pg';
import type { Child } from './processes.ts';
import { Q_WORD, SINGLE_VARIANT, VARIANT_LENSES } from './seed.ts';
import { LARGEST, settings } from './settings.ts';
import {
  acpCompletions, acpSessionFlow, addItemStream, cartsPerLeg, checkoutStream, discountStream, ucpCompletions, ucpSessionFlow,
  type Flow, type NextRequest, type PreparedCompletions, type Stream, type WriteFixtures,
} from './write-cases.ts';

export type CaseDef = {
  name: string;
  path: string;
  /** Request bodies, rotated over the run (one per request, shared by all connections). */
  bodies: string[];
  auth: boolean;
  write: boolean;
  /** The MCP request the case sends (revision, method, tool), or false for REST. */
  mcp: McpRequest | false;
  /** Same path and bodies on the baseline server, measured interleaved with the service. */
  baseline: boolean;
  /** Optional cases (other issues' tools) are skipped, not failed, when the service answers 404. */
  optional: boolean;
  /** Cases of one group are measured interleaved, round by round, so ratios between them see the same load. */
  group: string;
  /** A storefront page: GET of these paths in turn (no body) instead of POSTs of `bodies` to `path`. */
  pages?: string[];
  /** Writes that consume state (a cart, a fresh code or Idempotency-Key): each request is the stream's next one. */
  next?: { service: Stream; baseline?: Stream };
  /** Connections for this case instead of BENCH_CONNECTIONS. */
  connections?: number;
  /** Measured on the second service started with PAYMENTS_PROVIDER=stripe against the fake Stripe API. */
  stripe?: boolean;
  /** Several requests per unit of work (a UCP session: create, then complete); req/s then counts units. */
  flow?: Flow;
  /** State the flow consumes, made through the service once it runs (before the case's probe). */
  prepare?: PreparedCompletions['prepare'];
};

export const MCP_ERAS = ['2025-11-25', '2026-07-28'] as const;
export type McpEra = (typeof MCP_ERAS)[number];
/** A tools/call of `tool`, or a tools/list when `tool` is absent. */
export type McpRequest = { era: McpEra; tool?: string };

/**
 * The MCP request as a client of that revision sends it (2026-07-28: the envelope in `_meta`): a tools/call of the
 * request's tool with these arguments, or a tools/list.
 */
function mcpBody({ era, tool }: McpRequest, args: unknown = {}): string {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': era,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const meta = era === '2026-07-28' ? { _meta: envelope } : {};
  if (tool === undefined) return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', ...(era === '2026-07-28' ? { params: meta } : {}) });
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args, ...meta } });
}

export const C = {
  searchNone: 'products.search (no filter)',
  searchQ: `products.search (q="${Q_WORD}", ~1%)`,
  searchCategory: 'products.search (category+inStock+price)',
  get: 'products.get (random slugs)',
  getVariants: 'products.get (20 variants)',
  searchVariant: `products.search (optionValue="${VARIANT_LENSES[1]}"+inStock)`,
  categories: 'categories.list',
  searchAuth: 'products.search (no filter, authenticated)',
  orders: 'orders.list (status, authenticated)',
  mcp: (era: McpEra) => `MCP tools/call products.search (${era})`,
  mcpGet: (era: McpEra) => `MCP tools/call products.get (${era})`,
  mcpList: (era: McpEra) => `MCP tools/list, every scope (${era})`,
  update: 'products.update (authenticated write)',
  productPage: 'storefront product page (random slugs)',
  productPageRendered: 'storefront product page (5,000 products, rendered on every request)',
  categoryPage: 'storefront category page (first page)',
  replay: 'products.update replayed (same Idempotency-Key)',
  addItem: 'cart.add_item (authenticated write)',
  checkout: 'checkout.create_order (distinct products, Idempotency-Key)',
  checkoutStripe: 'checkout.create_order (PAYMENTS_PROVIDER=stripe, fake Stripe)',
  hot: 'checkout.create_order (one hot product, 20 connections)',
  checkoutVariants: 'checkout.create_order (a variant of a 20-variant product, Idempotency-Key)',
  discount: 'discounts.create (authenticated write)',
  ucp: 'UCP checkout session create + complete (distinct variants)',
  ucpHot: 'UCP checkout session create + complete (one hot variant, 20 connections)',
  acp: 'ACP checkout session create + complete (distinct variants, fake Stripe)',
  ucpComplete: 'UCP checkout session complete (distinct variants, sessions made in setup)',
  ucpCompleteHot: 'UCP checkout session complete (one hot variant, 20 connections, sessions made in setup)',
  acpComplete: 'ACP checkout session complete (distinct variants, fake Stripe, sessions made in setup)',
} as const;

type Fixtures = { getSlugs: string[]; updateSlugs: string[]; renderSlugs: string[]; categorySlugs: string[]; variantSlugs: string[] };

export async function loadFixtures(url: string): Promise<Fixtures> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // md5 ordering: a deterministic "random" sample, the same on every run.
    const slugs = async (salt: string, count = 1000, where = 'true') =>
      (await client.query<{ slug: string }>(
        `SELECT slug FROM "Product" WHERE "deletedAt" IS NULL AND ${where} ORDER BY md5(slug || $1) LIMIT $2`, [salt, count],
      )).rows.map((r) => r.slug);
    const categorySlugs = (await client.query<{ slug: string }>(`SELECT slug FROM "Category" ORDER BY md5(slug) LIMIT 10`)).rows.map((r) => r.slug);
    // 5,000 products: more than the storefront's render memo holds (1,000 pages), so that case renders every page.
    // Updates write a product's price: only products with one variant have their own (the others' is derived).
    return {
      getSlugs: await slugs('get'), updateSlugs: await slugs('update', 1000, SINGLE_VARIANT), renderSlugs: await slugs('render', 5000), categorySlugs,
      variantSlugs: await slugs('variants', 200, `NOT ${SINGLE_VARIANT}`),
    };
  } finally {
    await client.end();
  }
}

export function buildCases(fx: Fixtures, products: number, writes: WriteFixtures | null): CaseDef[] {
  const tool = (name: string) => `/api/v1/tools/${name}`;
  const json = (v: unknown) => JSON.stringify(v);
  const base = { auth: false, write: false, mcp: false as const, baseline: false, optional: false };
  const cases: CaseDef[] = [
    // One group: the anonymous REST call, its baseline, the same call authenticated and through MCP — the
    // auth/anon and MCP/REST ratios are then measured under the same conditions.
    { ...base, group: 'search', name: C.searchNone, path: tool('products.search'), bodies: ['{}'], baseline: true },
    { ...base, group: 'search', name: C.searchAuth, path: tool('products.search'), bodies: ['{}'], auth: true },
    ...MCP_ERAS.map((era) => {
      const mcp = { era, tool: 'products.search' };
      return { ...base, group: 'search', name: C.mcp(era), path: '/api/mcp', bodies: [mcpBody(mcp)], mcp, optional: true };
    }),
    { ...base, group: 'q', name: C.searchQ, path: tool('products.search'), bodies: [json({ q: Q_WORD })], baseline: true },
    {
      ...base,
      group: 'category',
      name: C.searchCategory,
      path: tool('products.search'),
      // 500–1500 DKK: about a third of the price range.
      bodies: fx.categorySlugs.map((categorySlug) => json({ categorySlug, inStock: true, minPriceOere: 50_000, maxPriceOere: 150_000 })),
      baseline: true,
    },
    { ...base, group: 'get', name: C.get, path: tool('products.get'), bodies: fx.getSlugs.map((slug) => json({ slug })), baseline: true },
    // A product sold in 20 variants: its answer carries all of them (issue target: ≥ 0.9 × the plain products.get).
    { ...base, group: 'get', name: C.getVariants, path: tool('products.get'), bodies: fx.variantSlugs.map((slug) => json({ slug })), baseline: true },
    // The same reads over MCP, and the tool list an agent with every scope loads, interleaved with the REST read.
    ...MCP_ERAS.flatMap((era) => {
      const get = { era, tool: 'products.get' };
      return [
        { ...base, group: 'get', name: C.mcpGet(era), path: '/api/mcp', bodies: fx.getSlugs.map((slug) => mcpBody(get, { slug })), mcp: get, optional: true },
        { ...base, group: 'get', name: C.mcpList(era), path: '/api/mcp', bodies: [mcpBody({ era })], mcp: { era }, auth: true, optional: true },
      ];
    }),
    // The same products as HTML, measured interleaved with products.get: the page must reach 0.7 × its req/s.
    { ...base, group: 'get', name: C.productPage, path: '/products/', bodies: [], pages: fx.getSlugs.map((slug) => `/products/${slug}`) },
    // The same page where the render memo cannot help: what rendering costs (reported, no ratio target).
    { ...base, group: 'get', name: C.productPageRendered, path: '/products/', bodies: [], pages: fx.renderSlugs.map((slug) => `/products/${slug}`) },
    { ...base, group: 'category-page', name: C.categoryPage, path: '/categories/', bodies: [], pages: fx.categorySlugs.map((slug) => `/categories/${slug}`) },
    {
      ...base, group: 'variant-search', name: C.searchVariant, path: tool('products.search'),
      bodies: [json({ optionValue: VARIANT_LENSES[1], inStock: true })], baseline: true,
    },
    { ...base, group: 'categories', name: C.categories, path: tool('categories.list'), bodies: ['{}'] },
    {
      ...base,
      group: 'orders',
      name: C.orders,
      path: tool('orders.list'),
      bodies: ['paid', 'shipped', 'pending_payment', 'delivered'].map((status) => json({ status })),
      auth: true,
      optional: true,
    },
  ];
  if (products === LARGEST) {
    cases.push({
      ...base,
      group: 'update',
      name: C.update,
      path: tool('products.update'),
      // A different slug and price on every request: no row lock is contended, every call really writes.
      bodies: fx.updateSlugs.map((slug, i) => json({ slug, patch: { priceDkk: 10_000 + i * 100 } })),
      auth: true,
      write: true,
      baseline: true,
    });
    // Measured with products.get: the replay is compared with the cheapest read, in the same rounds.
    const replayed: NextRequest = { body: json({ slug: fx.updateSlugs[0], patch: { priceDkk: 12_345 } }), headers: { 'idempotency-key': `replay-${Date.now()}` } };
    cases.push({ ...base, group: 'get', name: C.replay, path: tool('products.update'), bodies: [replayed.body], auth: true, write: true, next: { service: () => replayed } });
  }
  if (products === LARGEST && writes) {
    const write = { ...base, auth: true, write: true };
    cases.push(
      { ...write, group: 'add', name: C.addItem, path: tool('cart.add_item'), bodies: [], next: { service: addItemStream(writes.addCarts, writes.addSlugs) } },
      {
        ...write,
        group: 'checkout',
        name: C.checkout,
        path: tool('checkout.create_order'),
        bodies: [],
        baseline: true,
        next: { service: checkoutStream(writes.distinct.service, 'distinct-s'), baseline: checkoutStream(writes.distinct.baseline, 'distinct-b') },
      },
      {
        // The same checkouts with the Checkout Session opened after the commit, measured in the same rounds.
        ...write,
        group: 'checkout',
        name: C.checkoutStripe,
        path: tool('checkout.create_order'),
        bodies: [],
        stripe: true,
        next: { service: checkoutStream(writes.distinct.stripe, 'distinct-st') },
      },
      {
        ...write,
        group: 'checkout-variants',
        name: C.checkoutVariants,
        path: tool('checkout.create_order'),
        bodies: [],
        baseline: true,
        next: { service: checkoutStream(writes.variants.service, 'variants-s'), baseline: checkoutStream(writes.variants.baseline, 'variants-b') },
      },
      {
        ...write,
        group: 'hot',
        name: C.hot,
        path: tool('checkout.create_order'),
        bodies: [],
        baseline: true,
        connections: 20,
        next: { service: checkoutStream(writes.hot.service.carts, 'hot-s'), baseline: checkoutStream(writes.hot.baseline.carts, 'hot-b') },
      },
      { ...write, group: 'discount', name: C.discount, path: tool('discounts.create'), bodies: [], next: { service: discountStream() } },
      // A UCP checkout session created ready and completed (two requests; req/s counts sessions), in the rounds of the
      // checkouts it is compared with. On the second service: it runs with NODE_ENV=development, where the test
      // payment handler is offered (a completion there takes no payment, as a manual checkout takes none).
      { ...write, group: 'checkout', name: C.ucp, path: '/ucp/checkout-sessions', bodies: [], stripe: true, flow: ucpSessionFlow(writes.ucp.distinct, 'ucp-d') },
      // An ACP session paid with a SharedPaymentToken at the fake Stripe API, against the checkout that opens a Stripe
      // Checkout Session (both call Stripe once per order), in the same rounds.
      { ...write, group: 'checkout', name: C.acp, path: '/acp/checkout_sessions', bodies: [], stripe: true, flow: acpSessionFlow(writes.ucp.distinct, 'acp-d') },
      {
        ...write, group: 'hot', name: C.ucpHot, path: '/ucp/checkout-sessions', bodies: [], stripe: true, connections: 20,
        flow: ucpSessionFlow([writes.ucp.hot.variantId], 'ucp-h', writes.ucp.hot.stock),
      },
      // The completions alone, of sessions made in setup as the checkouts' carts are: like for like with them.
      completions(write, 'checkout', C.ucpComplete, '/ucp/checkout-sessions', ucpCompletions(writes.ucp.distinct, 'ucp-cd', cartsPerLeg())),
      { ...completions(write, 'hot', C.ucpCompleteHot, '/ucp/checkout-sessions', ucpCompletions([writes.ucp.hotCompletions.variantId], 'ucp-ch', writes.ucp.hotCompletions.stock)), connections: 20 },
      completions(write, 'checkout', C.acpComplete, '/acp/checkout_sessions', acpCompletions(writes.ucp.distinct, 'acp-cd', cartsPerLeg())),
    );
  }
  return settings.caseFilter ? cases.filter((c) => settings.caseFilter!.test(c.name)) : cases;
}

function completions(write: Omit<CaseDef, 'name' | 'group' | 'path' | 'bodies'>, group: string, name: string, path: string, prepared: PreparedCompletions): CaseDef {
  return { ...write, group, name, path, bodies: [], stripe: true, flow: prepared.flow, prepare: prepared.prepare };
}

export function headersFor(c: Pick<CaseDef, 'auth' | 'mcp'>, key: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...(c.mcp ? { accept: 'application/json, text/event-stream', 'mcp-protocol-version': c.mcp.era } : {}),
    ...(c.mcp && c.mcp.era === '2026-07-28'
      ? { 'mcp-method': c.mcp.tool === undefined ? 'tools/list' : 'tools/call', ...(c.mcp.tool === undefined ? {} : { 'mcp-name': c.mcp.tool }) }
      : {}),
    ...(c.auth ? { authorization: `Bearer ${key}` } : {}),
  };
}

export async function post(port: number, p: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`http://127.0.0.1:${port}${p}`, { method: 'POST', headers, body });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/** Null when the case can run; otherwise why not (and whether that is a skip or an error). */
export async function probe(c: CaseDef, service: Child, key: string): Promise<{ skip: boolean; reason: string } | null> {
  if (c.pages) {
    const res = await fetch(`http://127.0.0.1:${service.port}${c.pages[0]}`);
    return res.status === 200 ? null : { skip: false, reason: `status ${res.status} for GET ${c.pages[0]}` };
  }
  if (c.flow) return probeFlow(c.flow, service, key);
  const first = c.next ? c.next.service() : { body: c.bodies[0] };
  const res = await post(service.port, c.path, first.body, { ...headersFor(c, key), ...first.headers });
  const text = res.body.toString();
  if (res.status === 404 && c.optional) return { skip: true, reason: `not available (404 at ${c.path})` };
  if (res.status !== 200) return { skip: false, reason: `status ${res.status}: ${text.slice(0, 300)}` };
  if (c.mcp) {
    // A tool error comes back as 200 with result.isError; that is not a working call.
    let msg: { result?: { isError?: boolean } } | undefined;
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return { skip: false, reason: `not a JSON-RPC JSON response: ${text.slice(0, 300)}` };
    }
    if (!msg?.result || msg.result.isError) return { skip: false, reason: `no successful result: ${text.slice(0, 300)}` };
  }
  return null;
}

/** A flow's requests once in order, each answered 2xx (the last a protocol's checkout completed). */
async function probeFlow(flow: Flow, service: Child, key: string): Promise<{ skip: boolean; reason: string } | null> {
  const context: Record<string, unknown> = {};
  let last = '';
  for (const step of flow.requests(headersFor({ auth: true, mcp: false }, key))) {
    const req = step.setupRequest ? step.setupRequest(step, context) : step;
    const res = await post(service.port, req.path ?? '/', req.body ?? '', req.headers ?? {});
    last = res.body.toString();
    step.onResponse?.(res.status, last, context);
    if (res.status < 200 || res.status > 299) return { skip: false, reason: `status ${res.status} for ${req.path}: ${last.slice(0, 300)}` };
  }
  return (JSON.parse(last) as { status?: string }).status === 'completed' ? null : { skip: false, reason: `not completed: ${last.slice(0, 300)}` };
}

/** The service and the baseline must answer every body of a baseline case with the very same bytes. */
export async function checkIdentical(c: CaseDef, service: Child, baseline: Child, key: string): Promise<void> {
  if (c.next) return; // Stream cases are checked by their own probe (bench/write-cases.ts).
  const sample = c.bodies.length > 50 ? c.bodies.filter((_, i) => i % Math.ceil(c.bodies.length / 50) === 0) : c.bodies;
  for (const body of sample) {
    const [a, b] = await Promise.all([
      post(service.port, c.path, body, headersFor({ auth: c.auth, mcp: false }, key)),
      post(baseline.port, c.path, body, headersFor({ auth: false, mcp: false }, '')),
    ]);
    if (a.status !== 200 || b.status !== 200 || !a.body.equals(b.body)) {
      let at = 0;
      while (at < a.body.length && a.body[at] === b.body[at]) at++;
      throw new Error(
        `service and baseline differ for ${c.name} with body ${body} (status ${a.status} vs ${b.status}, first difference at byte ${at}):\n` +
          `  service:  …${a.body.subarray(Math.max(0, at - 80), at + 120).toString()}\n` +
          `  baseline: …${b.body.subarray(Math.max(0, at - 80), at + 120).toString()}`,
      );
    }
    const parsed = JSON.parse(a.body.toString()) as { result: unknown };
    if (Array.isArray(parsed.result) && parsed.result.length === 0) throw new Error(`${c.name} returns no rows for ${body}: the bench data is wrong`);
  }
}
