// Variants over HTTP on PostgreSQL (docs/catalog.md, "Variants"): the default variant and the derived product price
// and stock under the existing tools, then products.set_options and variants.*; each answer checked with the rows
// and audit entries it leaves; every refused write leaves them as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SCHEMAS } from '../../src/events/catalogue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { concurrently, lastAudit, okResult, revert } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createCart, createProduct, makeOrder, makeProduct } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key();
});
afterAll(async () => {
  await t?.close();
});

type Variant = { id: string; sku: string | null; options: Record<string, string>; priceDkk: number; stock: number; available: boolean; position: number };
type SetOptionsResult = { created: Variant[]; removed: Variant[]; variants: Variant[] };

const IMAGE = 'https://images.example.com/frame.jpg';
const LENS = { name: 'Lens colour', values: ['Grey', 'Brown', 'Green'] };
let seq = 0;
const product = async (over: Record<string, unknown> = {}) =>
  createProduct(t, key, { slug: `frame-${++seq}`, priceDkk: 50_000, stock: 6, images: [IMAGE], ...over });
const liveVariants = (productId: string) =>
  t.db.productVariant.findMany({ where: { productId, deletedAt: null }, orderBy: { position: 'asc' } });
const productRow = (id: string) => t.db.product.findUniqueOrThrow({ where: { id } });
const setOptions = (slug: string, options: unknown[], extra: Record<string, unknown> = {}) =>
  t.call('products.set_options', { slug, options, ...extra }, key);
const get = async (slug: string) => okResult<{ priceDkk: number; stock: number; options: unknown[]; variants: Variant[] }>(await t.call('products.get', { slug }));

describe('products.set_options', () => {
  it('previews with dryRun exactly the variants it would create, changing nothing', async () => {
    const p = await product();
    const [defaultVariant] = await liveVariants(p.id);
    const res = await setOptions(p.slug, [LENS], { dryRun: true });
    const preview = okResult<SetOptionsResult>(res);
    expect(res.json().dryRun).toBe(true);
    expect(preview.created.map((v) => v.options)).toEqual([{ 'Lens colour': 'Brown' }, { 'Lens colour': 'Green' }]);
    expect(preview.removed).toEqual([]);
    expect(preview.variants.map((v) => [v.id === defaultVariant.id, v.options])).toEqual([
      [true, { 'Lens colour': 'Grey' }], [false, { 'Lens colour': 'Brown' }], [false, { 'Lens colour': 'Green' }],
    ]);
    expect(await liveVariants(p.id)).toEqual([defaultVariant]);
    expect(await t.db.productOption.count({ where: { productId: p.id } })).toBe(0);
  });

  it('makes one variant per combination, keeping the default one as the first, and products.get lists them', async () => {
    const p = await product();
    const result = okResult<SetOptionsResult>(await setOptions(p.slug, [LENS]));
    expect(result.variants).toHaveLength(3);
    const rows = await liveVariants(p.id);
    expect(rows.map((v) => [v.optionValues, v.priceDkk, v.stock])).toEqual([[['Grey'], 50_000n, 6n], [['Brown'], 50_000n, 0n], [['Green'], 50_000n, 0n]]);
    const detail = await get(p.slug);
    expect(detail.options).toEqual([LENS]);
    expect(detail.variants.map((v) => [v.options['Lens colour'], v.available])).toEqual([['Grey', true], ['Brown', false], ['Green', false]]);
    const audits = await t.db.auditEntry.findMany({ where: { tool: 'products.set_options' } });
    expect(audits.filter((a) => a.entityType === 'variant' && a.before === null)).toHaveLength(2);
  });

  it('removes the variants of a dropped value and shows them in the preview', async () => {
    const p = await product();
    okResult(await setOptions(p.slug, [LENS]));
    const brown = (await liveVariants(p.id))[1];
    const preview = okResult<SetOptionsResult>(await setOptions(p.slug, [{ name: 'Lens colour', values: ['Grey', 'Green'] }], { dryRun: true }));
    expect(preview.removed.map((v) => [v.id, v.options])).toEqual([[brown.id, { 'Lens colour': 'Brown' }]]);
    expect(preview.created).toEqual([]);
    okResult(await setOptions(p.slug, [{ name: 'Lens colour', values: ['Grey', 'Green'] }]));
    expect((await t.db.productVariant.findUniqueOrThrow({ where: { id: brown.id } })).deletedAt).not.toBeNull();
    expect((await liveVariants(p.id)).map((v) => v.optionValues)).toEqual([['Grey'], ['Green']]);
  });

  it('answers each limit with its own 422 and changes nothing', async () => {
    const p = await product();
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const cases: [unknown[], string][] = [
      [[LENS, { name: 'A', values: ['a'] }, { name: 'B', values: ['b'] }, { name: 'C', values: ['c'] }], 'option_limit_exceeded'],
      [[{ name: 'Size', values: values(101) }], 'option_value_limit_exceeded'],
      [[{ name: 'A', values: values(11) }, { name: 'B', values: values(10) }], 'variant_limit_exceeded'],
      [[{ name: 'Size', values: ['M', 'm'] }], 'invalid_options'],
    ];
    for (const [options, code] of cases) expectProblem(await setOptions(p.slug, options), 422, code);
    expect(await liveVariants(p.id)).toHaveLength(1);
    expect(await t.db.auditEntry.count({ where: { tool: 'products.set_options', entityId: (await liveVariants(p.id))[0].id } })).toBe(0);
  });
});

describe('variants.create / update / delete', () => {
  it('creates a variant with one value per option, refusing mismatches, taken combinations, SKUs and foreign images', async () => {
    const p = await product();
    okResult(await setOptions(p.slug, [{ name: 'Size', values: ['S', 'M', 'L'] }]));
    const [small] = await liveVariants(p.id);
    await t.db.productVariant.update({ where: { id: small.id }, data: { sku: 'FR-S' } });
    const l = (await liveVariants(p.id))[2];
    okResult(await t.call('variants.delete', { variantId: l.id, confirm: true }, key));

    expectProblem(await t.call('variants.create', { productSlug: p.slug, options: { Colour: 'L' }, priceDkk: 1 }, key), 422, 'variant_options_mismatch');
    expectProblem(await t.call('variants.create', { productSlug: p.slug, options: { Size: 'M' }, priceDkk: 1 }, key), 409, 'conflict');
    expectProblem(await t.call('variants.create', { productSlug: p.slug, options: { Size: 'L' }, priceDkk: 1, sku: 'FR-S' }, key), 409, 'conflict');
    expectProblem(await t.call('variants.create', { productSlug: p.slug, options: { Size: 'L' }, priceDkk: 1, images: ['https://elsewhere.example.com/x.jpg'] }, key), 422, 'variant_image_unknown');
    expect(await liveVariants(p.id)).toHaveLength(2);

    const created = okResult<Variant>(await t.call('variants.create', { productSlug: p.slug, options: { Size: 'L' }, priceDkk: 45_000, stock: 2, sku: 'FR-L', images: [IMAGE] }, key));
    expect(created).toMatchObject({ sku: 'FR-L', options: { Size: 'L' }, priceDkk: 45_000, stock: 2, available: true });
    expect(await productRow(p.id)).toMatchObject({ priceDkk: 45_000n, stock: 8n });
    expect((await lastAudit(t, 'variants.create', created.id)).before).toBeNull();
  });

  it('updates a variant, the product following, and audit.revert puts it back', async () => {
    const p = await product();
    okResult(await setOptions(p.slug, [{ name: 'Size', values: ['S', 'M'] }]));
    const [, medium] = await liveVariants(p.id);
    const updated = okResult<Variant>(await t.call('variants.update', { variantId: medium.id, patch: { priceDkk: 30_000, stock: 4, sku: 'M-1' } }, key));
    expect(updated).toMatchObject({ priceDkk: 30_000, stock: 4, sku: 'M-1' });
    expect(await productRow(p.id)).toMatchObject({ priceDkk: 30_000n, stock: 10n });
    okResult(await revert(t, key, (await lastAudit(t, 'variants.update', medium.id)).id));
    expect(await t.db.productVariant.findUniqueOrThrow({ where: { id: medium.id } })).toMatchObject({ priceDkk: 50_000n, stock: 0n, sku: null });
    expect(await productRow(p.id)).toMatchObject({ priceDkk: 50_000n, stock: 6n });
    expectProblem(await t.call('variants.update', { variantId: medium.id, patch: { options: { Size: 'S' } } }, key), 409, 'conflict');
    expectProblem(await t.call('variants.update', { variantId: 'nope', patch: { stock: 1 } }, key), 404, 'not_found');
  });

  it('deletes with confirm only, never the last variant, and audit.revert restores it', async () => {
    const p = await product();
    okResult(await setOptions(p.slug, [{ name: 'Size', values: ['S', 'M'] }]));
    const [small, medium] = await liveVariants(p.id);
    expectProblem(await t.call('variants.delete', { variantId: medium.id }, key), 422, 'confirmation_required');
    okResult(await t.call('variants.delete', { variantId: medium.id, confirm: true }, key));
    expect((await get(p.slug)).variants.map((v) => v.id)).toEqual([small.id]);
    expectProblem(await t.call('variants.delete', { variantId: small.id, confirm: true }, key), 422, 'last_variant');
    okResult(await revert(t, key, (await lastAudit(t, 'variants.delete', medium.id)).id));
    expect((await liveVariants(p.id)).map((v) => v.id)).toEqual([small.id, medium.id]);
    // Deleted again and its values taken by a new variant: restoring it would repeat them (409, nothing changed).
    okResult(await t.call('variants.delete', { variantId: medium.id, confirm: true }, key));
    okResult(await t.call('variants.create', { productSlug: p.slug, options: { Size: 'M' }, priceDkk: 1_000 }, key));
    expectProblem(await revert(t, key, (await lastAudit(t, 'variants.delete', medium.id)).id), 409, 'conflict');
    expect(await liveVariants(p.id)).toHaveLength(2);
  });
});

describe('variants.adjust_stock', () => {
  it('adds and removes units, never below zero unless on backorder', async () => {
    const p = await product({ stock: 3 });
    const [v] = await liveVariants(p.id);
    expect(okResult(await t.call('variants.adjust_stock', { variantId: v.id, delta: 4 }, key))).toEqual({ variantId: v.id, stock: 7, available: true });
    expectProblem(await t.call('variants.adjust_stock', { variantId: v.id, delta: -8 }, key), 422, 'value_out_of_range');
    expectProblem(await t.call('variants.adjust_stock', { variantId: v.id, delta: 0 }, key), 422, 'value_out_of_range');
    expect((await t.db.productVariant.findUniqueOrThrow({ where: { id: v.id } })).stock).toBe(7n);
    okResult(await t.call('variants.update', { variantId: v.id, patch: { allowBackorder: true } }, key));
    expect(okResult(await t.call('variants.adjust_stock', { variantId: v.id, delta: -8 }, key))).toEqual({ variantId: v.id, stock: -1, available: true });
    expect(await productRow(p.id)).toMatchObject({ stock: 0n });
    // Owing a unit, it cannot stop selling on backorder unless its stock is set in the same patch.
    expectProblem(await t.call('variants.update', { variantId: v.id, patch: { allowBackorder: false } }, key), 422, 'value_out_of_range');
    okResult(await t.call('variants.update', { variantId: v.id, patch: { allowBackorder: false, stock: 0 } }, key));
  });

  it('emits variant.updated and variant.stock_changed, in their published schemas', async () => {
    const p = await product({ stock: 2 });
    const [v] = await liveVariants(p.id);
    okResult(await t.call('variants.adjust_stock', { variantId: v.id, delta: 3 }, key));
    const events = await t.db.webhookEvent.findMany({ where: { entityType: 'variant', entityId: v.id } });
    expect(events.map((e) => e.type).sort()).toEqual(['variant.stock_changed', 'variant.updated']);
    for (const e of events) {
      expect(e.data).toMatchObject({ changedFields: ['stock'], previousValues: { stock: 2 }, object: { id: v.id, stock: 5 } });
      const payload = { id: e.id, type: e.type, createdAt: new Date().toISOString(), data: { entityType: 'variant', entityId: v.id, sequence: 1, ...(e.data as object) } };
      expect(EVENT_SCHEMAS.get(e.type)!.safeParse(payload).success).toBe(true);
    }
  });

  it('takes concurrent decrements atomically: of 10 at stock 5, exactly 5 succeed', async () => {
    const p = await product({ stock: 5 });
    const [v] = await liveVariants(p.id);
    const results = await concurrently(10, () => t.call('variants.adjust_stock', { variantId: v.id, delta: -1 }, key));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 422)).toHaveLength(5);
    expect((await t.db.productVariant.findUniqueOrThrow({ where: { id: v.id } })).stock).toBe(0n);
    expect(await productRow(p.id)).toMatchObject({ stock: 0n });
  });

  it('is applied once per Idempotency-Key', async () => {
    const p = await product({ stock: 1 });
    const [v] = await liveVariants(p.id);
    const headers = { 'idempotency-key': `adjust-${p.id}` };
    for (let i = 0; i < 2; i++) okResult(await t.call('variants.adjust_stock', { variantId: v.id, delta: 2 }, key, { headers }));
    expect((await t.db.productVariant.findUniqueOrThrow({ where: { id: v.id } })).stock).toBe(3n);
  });
});

describe('products.search with variants', () => {
  it('filters by an option value with the price and stock of that variant, and summarises variants', async () => {
    const p = await product({ name: 'Searchable variant frame' });
    okResult(await setOptions(p.slug, [LENS]));
    const [grey, brown] = await liveVariants(p.id);
    okResult(await t.call('variants.update', { variantId: brown.id, patch: { priceDkk: 70_000, stock: 1 } }, key));
    const search = async (body: Record<string, unknown>) =>
      okResult<{ slug: string; variantCount: number; priceDkk: number; maxPriceDkk: number }[]>(await t.call('products.search', { q: 'Searchable variant', ...body }));

    expect(await search({})).toEqual([expect.objectContaining({ slug: p.slug, variantCount: 3, priceDkk: 50_000, maxPriceDkk: 70_000 })]);
    expect(await search({ optionValue: 'brown' })).toHaveLength(1);
    expect(await search({ optionValue: 'Blue' })).toEqual([]);
    expect(await search({ optionValue: 'Brown', minPriceOere: 60_000 })).toHaveLength(1);
    expect(await search({ optionValue: 'Grey', minPriceOere: 60_000 })).toEqual([]);
    expect(await search({ optionValue: 'Green', inStock: true })).toEqual([]);
    expect(await search({ optionValue: 'Green', inStock: false })).toHaveLength(1);
    expect(await search({ optionValue: 'Grey', inStock: true })).toHaveLength(1);
    expect(grey.optionValues).toEqual(['Grey']);
  });
});

const variantsOf = (productId: string) =>
  t.db.productVariant.findMany({ where: { productId }, orderBy: { position: 'asc' } });

/** A second variant written straight to the rows, as products.set_options would leave it. */
async function makeTwoVariants(slug: string) {
  const product = await makeProduct(t.db, { slug, priceDkk: 20_000, stock: 3 });
  const [first] = await variantsOf(product.id);
  await t.db.productOption.create({ data: { productId: product.id, position: 0, name: 'Size', values: ['S', 'M'] } });
  await t.db.productVariant.update({ where: { id: first.id }, data: { optionValues: ['S'] } });
  const second = await t.db.productVariant.create({ data: { productId: product.id, optionValues: ['M'], priceDkk: 15_000n, stock: 4n, position: 1 } });
  return { product, first, second };
}

describe('the default variant', () => {
  it('is created with every product, carrying its price and stock, and follows products.update', async () => {
    const { id, slug } = await createProduct(t, key, { slug: 'one-variant', priceDkk: 12_300, stock: 7 });
    const [variant, ...others] = await variantsOf(id);
    expect(others).toEqual([]);
    expect(variant).toMatchObject({ priceDkk: 12_300n, stock: 7n, optionValues: [], sku: null, deletedAt: null });

    okResult(await t.call('products.update', { slug, patch: { priceDkk: 9_900, stock: 2 } }, key));
    expect(await t.db.productVariant.findUnique({ where: { id: variant.id } })).toMatchObject({ priceDkk: 9_900n, stock: 2n });
    expect(await t.db.product.findUnique({ where: { id } })).toMatchObject({ priceDkk: 9_900n, stock: 2n });
  });

  it('has its stock taken by a checkout and given back by audit.revert of a products.update', async () => {
    const product = await makeProduct(t.db, { slug: 'checked-out', stock: 5 });
    const { cartId } = await createCart(t, key, [{ productSlug: 'checked-out', quantity: 2 }]);
    okResult(await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, key));
    expect((await variantsOf(product.id))[0].stock).toBe(3n);

    okResult(await t.call('products.update', { slug: 'checked-out', patch: { stock: 10 } }, key));
    okResult(await revert(t, key, (await lastAudit(t, 'products.update', product.id)).id));
    expect((await variantsOf(product.id))[0].stock).toBe(3n);
  });
});

describe('a product with several variants', () => {
  it('has the lowest live price and the total stock, kept in step with its variants', async () => {
    const { product, second } = await makeTwoVariants('two-sizes');
    expect(await t.db.product.findUnique({ where: { id: product.id } })).toMatchObject({ priceDkk: 15_000n, stock: 7n });
    await t.db.productVariant.update({ where: { id: second.id }, data: { deletedAt: new Date() } });
    expect(await t.db.product.findUnique({ where: { id: product.id } })).toMatchObject({ priceDkk: 20_000n, stock: 3n });
  });

  it('refuses products.update of priceDkk or stock with 422 variant_required naming variants.update, changing nothing', async () => {
    const { product } = await makeTwoVariants('two-tiers');
    for (const patch of [{ priceDkk: 1 }, { stock: 100 }, { stock: 7, name: 'Renamed' }]) {
      const problem = expectProblem(await t.call('products.update', { slug: 'two-tiers', patch }, key), 422, 'variant_required');
      expect(problem.detail).toContain('variants.update');
    }
    expect(await t.db.product.findUnique({ where: { id: product.id } })).toMatchObject({ priceDkk: 15_000n, stock: 7n, name: product.name });
    expect(await t.db.auditEntry.count({ where: { entityId: product.id } })).toBe(0);
    // Other fields stay writable.
    okResult(await t.call('products.update', { slug: 'two-tiers', patch: { name: 'Two tiers' } }, key));
  });

  it('is reverted (audit.revert of a products.update from before its variants) without touching the variants', async () => {
    const product = await makeProduct(t.db, { slug: 'grew-variants', priceDkk: 20_000, stock: 3 });
    okResult(await t.call('products.update', { slug: 'grew-variants', patch: { name: 'Before variants' } }, key));
    const entry = await lastAudit(t, 'products.update', product.id);
    const [first] = await variantsOf(product.id);
    await t.db.productVariant.create({ data: { productId: product.id, optionValues: ['M'], priceDkk: 15_000n, stock: 4n, position: 1 } });
    await t.db.productVariant.update({ where: { id: first.id }, data: { optionValues: ['S'] } });

    okResult(await revert(t, key, entry.id, true));
    expect(await t.db.product.findUnique({ where: { id: product.id } })).toMatchObject({ name: product.name, priceDkk: 15_000n, stock: 7n });
    expect((await variantsOf(product.id)).map((v) => v.stock)).toEqual([3n, 4n]);
  });
});

describe('carts and checkout by variant', () => {
  type CartView = { cartId: string; items: { variantId: string; sku: string | null; options: Record<string, string>; quantity: number; unitPriceDkk: number; available: boolean }[] };

  /** A product in sizes S and M (SKUs <slug>-S, <slug>-M), priced 20,000 and 30,000, with the given stock each. */
  async function sized(stock: [number, number]) {
    const p = await product();
    okResult(await setOptions(p.slug, [{ name: 'Size', values: ['S', 'M'] }]));
    const [s, m] = await liveVariants(p.id);
    await t.db.productVariant.update({ where: { id: s.id }, data: { sku: `${p.slug}-S`, priceDkk: 20_000n, stock: BigInt(stock[0]) } });
    await t.db.productVariant.update({ where: { id: m.id }, data: { sku: `${p.slug}-M`, priceDkk: 30_000n, stock: BigInt(stock[1]) } });
    return { ...p, s: s.id, m: m.id };
  }

  it('refuses a product slug with several variants (422 variant_required listing them), changing nothing', async () => {
    const p = await sized([1, 1]);
    const { cartId } = okResult<CartView>(await t.call('cart.create', {}, key));
    const problem = expectProblem(await t.call('cart.add_item', { cartId, productSlug: p.slug, quantity: 1 }, key), 422, 'variant_required');
    expect(problem.detail).toContain(p.s);
    expect(problem.detail).toContain(`${p.slug}-M`);
    expectProblem(await t.call('cart.create', { items: [{ productSlug: p.slug, quantity: 1 }] }, key), 422, 'variant_required');
    expect(await t.db.cartItem.count({ where: { cartId } })).toBe(0);
    expectProblem(await t.call('cart.add_item', { cartId, sku: 'NO-SUCH-SKU', quantity: 1 }, key), 404, 'not_found');
    expectProblem(await t.call('cart.add_item', { cartId, sku: 'X', variantId: p.s, quantity: 1 }, key), 422, 'variant_required');
    expectProblem(await t.call('cart.add_item', { cartId, quantity: 1 }, key), 422, 'variant_required');
  });

  it('holds two variants of one product as two lines, by SKU or id, each with its price and options', async () => {
    const p = await sized([5, 5]);
    const cart = okResult<CartView>(await t.call('cart.create', { items: [{ sku: `${p.slug}-S`, quantity: 1 }, { variantId: p.m, quantity: 2 }] }, key));
    expect(cart.items.map((i) => [i.variantId, i.sku, i.options, i.unitPriceDkk, i.quantity])).toEqual([
      [p.s, `${p.slug}-S`, { Size: 'S' }, 20_000, 1], [p.m, `${p.slug}-M`, { Size: 'M' }, 30_000, 2],
    ]);
    const again = okResult<CartView>(await t.call('cart.add_item', { cartId: cart.cartId, variantId: p.s, quantity: 2 }, key));
    expect(again.items.find((i) => i.variantId === p.s)?.quantity).toBe(3);
    expectProblem(await t.call('cart.update_item', { cartId: cart.cartId, productSlug: p.slug, quantity: 0 }, key), 422, 'variant_required');
    const removed = okResult<CartView>(await t.call('cart.update_item', { cartId: cart.cartId, sku: `${p.slug}-M`, quantity: 0 }, key));
    expect(removed.items.map((i) => i.variantId)).toEqual([p.s]);
    // One line left: the slug names it again.
    okResult(await t.call('cart.update_item', { cartId: cart.cartId, productSlug: p.slug, quantity: 1 }, key));
    expect((await t.db.cartItem.findFirstOrThrow({ where: { cartId: cart.cartId } })).quantity).toBe(1n);
  });

  it('checks out variants: their stock taken, order lines naming variant, SKU and options; a cancel gives the stock back', async () => {
    const p = await sized([4, 4]);
    const { cartId } = okResult<CartView>(await t.call('cart.create', { items: [{ variantId: p.s, quantity: 1 }, { variantId: p.m, quantity: 3 }] }, key));
    const placed = okResult<{ orderId: string; subtotalDkk: number }>(await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, key));
    expect(placed.subtotalDkk).toBe(110_000);
    const items = await t.db.orderItem.findMany({ where: { orderId: placed.orderId }, orderBy: { unitPriceDkk: 'asc' } });
    expect(items.map((i) => [i.variantId, i.variantSku, i.variantAttributes, i.quantity])).toEqual([
      [p.s, `${p.slug}-S`, { Size: 'S' }, 1n], [p.m, `${p.slug}-M`, { Size: 'M' }, 3n],
    ]);
    expect((await liveVariants(p.id)).map((v) => v.stock)).toEqual([3n, 1n]);
    expect(await productRow(p.id)).toMatchObject({ stock: 4n, priceDkk: 20_000n });

    okResult(await t.call('orders.update_status', { orderId: placed.orderId, status: 'cancelled' }, key));
    expect((await liveVariants(p.id)).map((v) => v.stock)).toEqual([4n, 4n]);
    expect(await productRow(p.id)).toMatchObject({ stock: 8n });
  });

  it('gives a cancelled order from before variants its units back to the product’s default variant', async () => {
    const old = await makeProduct(t.db, { slug: 'sold-before-variants', stock: 2 });
    const order = await makeOrder(t.db, { status: 'paid', items: [{ productId: old.id, quantity: 3 }] });
    okResult(await setOptions('sold-before-variants', [{ name: 'Size', values: ['S', 'M'] }]));
    okResult(await t.call('orders.update_status', { orderId: order.id, status: 'cancelled' }, key));
    expect((await liveVariants(old.id)).map((v) => v.stock)).toEqual([5n, 0n]);
    expect(await productRow(old.id)).toMatchObject({ stock: 5n });
  });

  it('never oversells one hot variant: 20 concurrent checkouts at stock 3 place exactly 3 orders', async () => {
    const p = await sized([3, 7]);
    const carts = await Promise.all(Array.from({ length: 20 }, async () =>
      okResult<CartView>(await t.call('cart.create', { items: [{ variantId: p.s, quantity: 1 }] }, key)).cartId));
    const results = await concurrently(20, (i) => t.call('checkout.create_order', { cartId: carts[i], ...CHECKOUT_CONTACT }, key));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(3);
    for (const r of results.filter((x) => x.statusCode !== 200)) expectProblem(r, 422, 'out_of_stock');
    expect((await liveVariants(p.id)).map((v) => v.stock)).toEqual([0n, 7n]);
    expect(await t.db.orderItem.count({ where: { variantId: p.s } })).toBe(3);
    expect(await productRow(p.id)).toMatchObject({ stock: 7n });
  });

  it('shows a deleted variant unavailable and refuses its checkout; sells a backorder variant below zero', async () => {
    const p = await sized([2, 0]);
    const { cartId } = okResult<CartView>(await t.call('cart.create', { items: [{ variantId: p.s, quantity: 1 }] }, key));
    okResult(await t.call('variants.delete', { variantId: p.s, confirm: true }, key));
    const view = okResult<CartView>(await t.call('cart.get', { cartId }, key));
    expect(view.items[0].available).toBe(false);
    expect(expectProblem(await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, key), 422, 'out_of_stock').detail).toContain('no longer sold');

    okResult(await t.call('variants.update', { variantId: p.m, patch: { allowBackorder: true } }, key));
    const backorder = okResult<CartView>(await t.call('cart.create', { items: [{ variantId: p.m, quantity: 2 }] }, key));
    expect(backorder.items[0].available).toBe(true);
    okResult(await t.call('checkout.create_order', { cartId: backorder.cartId, ...CHECKOUT_CONTACT }, key));
    expect((await t.db.productVariant.findUniqueOrThrow({ where: { id: p.m } })).stock).toBe(-2n);
  });
});

describe('analytics.summary by variant', () => {
  it('breaks a top product down by variant with byVariant, lines from before variants as variantId null', async () => {
    const p = await product({ slug: 'analysed-frame', stock: 10 });
    const before = await makeProduct(t.db, { slug: 'analysed-old' });
    okResult(await setOptions(p.slug, [{ name: 'Size', values: ['S', 'M'] }]));
    const [s, m] = await liveVariants(p.id);
    await t.db.productVariant.update({ where: { id: m.id }, data: { stock: 5n, sku: 'AN-M' } });
    const { cartId } = okResult<{ cartId: string }>(await t.call('cart.create', { items: [{ variantId: s.id, quantity: 1 }, { sku: 'AN-M', quantity: 2 }] }, key));
    const { orderId } = okResult<{ orderId: string }>(await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, key));
    okResult(await t.call('orders.update_status', { orderId, status: 'paid' }, key));
    const old = await makeOrder(t.db, { status: 'paid', items: [{ productId: before.id, quantity: 1, unitPriceDkk: 1 }] });
    expect((await t.db.orderItem.findFirstOrThrow({ where: { orderId: old.id } })).variantId).toBeNull();

    const plain = okResult<{ topProducts: Record<string, unknown>[] }>(await t.call('analytics.summary', { topProductsLimit: 50 }, key));
    expect(plain.topProducts.every((r) => !('variants' in r))).toBe(true);
    const { topProducts } = okResult<{ topProducts: { productId: string; variants: unknown[] }[] }>(await t.call('analytics.summary', { topProductsLimit: 50, byVariant: true }, key));
    expect(topProducts.find((r) => r.productId === p.id)?.variants).toEqual([
      { variantId: m.id, variantSku: 'AN-M', variantAttributes: { Size: 'M' }, quantity: 2, revenueDkk: 100_000 },
      { variantId: s.id, variantSku: null, variantAttributes: { Size: 'S' }, quantity: 1, revenueDkk: 50_000 },
    ]);
    expect(topProducts.find((r) => r.productId === before.id)?.variants).toEqual([
      { variantId: null, variantSku: null, variantAttributes: null, quantity: 1, revenueDkk: 1 },
    ]);
  });
});

describe('the demo seed', () => {
  it('sells some demo products in several variants, and seeding again changes nothing about them', async () => {
    const { seedDemo } = await import('../../src/cli/seed/index.ts');
    const { DEMO_OPTIONS } = await import('../../src/cli/seed/catalog.ts');
    await seedDemo(t.db);
    const slugs = Object.keys(DEMO_OPTIONS);
    const snapshot = () => t.db.productVariant.findMany({ where: { product: { slug: { in: slugs } } }, orderBy: { id: 'asc' }, select: { id: true, optionValues: true, priceDkk: true, stock: true, deletedAt: true } });
    const first = await snapshot();
    expect(first.filter((v) => v.deletedAt === null)).toHaveLength(3 + 4 + 5 + 2);
    const detail = await get('tempo-wrap');
    expect(detail.options).toEqual(DEMO_OPTIONS['tempo-wrap']);
    expect(detail.variants.map((v) => v.options)).toEqual([
      { 'Lens colour': 'Smoke', Size: 'M' }, { 'Lens colour': 'Smoke', Size: 'L' }, { 'Lens colour': 'Mirror', Size: 'M' }, { 'Lens colour': 'Mirror', Size: 'L' },
    ]);
    await seedDemo(t.db);
    expect(await snapshot()).toEqual(first);
  });
});
