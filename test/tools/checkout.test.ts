import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { concurrently, expectScopeEnforced, lastAudit, okResult } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createCart, makeDiscount, makeProduct, type CartLine } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let agent: string;
let agentId: string;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ key: agent, id: agentId } = await createKey(t.db, { name: 'shopping-agent', scopes: ['cart:write'] }));
  admin = await t.key();
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'Cart', 'OrderItem', 'Order', 'Product', 'DiscountCode', 'ShopSettings', 'AuditEntry');
});

type CartView = {
  cartId: string; status: string; orderId: string | null; currency: string; discountCode: string | null;
  items: { productSlug: string; productName: string; unitPriceDkk: number; quantity: number; lineTotalDkk: number; available: boolean }[];
  subtotalDkk: number; discountDkk: number; shippingDkk: number; totalDkk: number; vatOere: number; createdAt: string;
};
type Checkout = CartView & { orderId: string; payment: { provider: string; instructions: string } };

const newCart = (items: CartLine[] = [], key = agent) => createCart<CartView>(t, key, items);
const checkout = (cartId: string, body: Record<string, unknown> = {}, key = agent) =>
  t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT, ...body }, key);
const stockOf = async (id: string) => (await t.db.product.findUniqueOrThrow({ where: { id } })).stock;
const usageOf = async (code: string) => (await t.db.discountCode.findUniqueOrThrow({ where: { code } })).usageCount;

describe('POST /api/v1/tools/cart.create', () => {
  it('creates an empty open cart priced at zero', async () => {
    const cart = await newCart();
    expect(cart).toMatchObject({
      status: 'open', orderId: null, currency: 'DKK', items: [], discountCode: null,
      subtotalDkk: 0, discountDkk: 0, shippingDkk: 0, totalDkk: 0, vatOere: 0,
    });
    expect(await t.db.cart.findUnique({ where: { id: cart.cartId } })).toMatchObject({ status: 'open' });
    expect((await lastAudit(t, 'cart.create', cart.cartId)).before).toBeNull();
  });

  it('creates a cart with items, merging repeated products', async () => {
    const p = await makeProduct(t.db, { slug: 'round', priceDkk: 10_000 });
    const cart = await newCart([{ productSlug: 'round', quantity: 1 }, { productSlug: 'round', quantity: 2 }]);
    // Issue 27: a line is a variant; a product with one variant is its default variant (no SKU, no options).
    expect(cart.items).toEqual([{
      productSlug: 'round', productName: p.name, variantId: expect.any(String), sku: null, options: {}, unitPriceDkk: 10_000, quantity: 3,
      lineTotalDkk: 30_000, available: true,
    }]);
    expect(cart).toMatchObject({ subtotalDkk: 30_000, shippingDkk: 4900, totalDkk: 34_900, vatOere: 6980 });
  });

  it('creates nothing when an item is unknown', async () => {
    expectProblem(await t.call('cart.create', { items: [{ productSlug: 'ghost', quantity: 1 }] }, agent), 404, 'not_found');
    expect(await t.db.cart.count()).toBe(0);
  });

  it('needs cart:write', async () => {
    await expectScopeEnforced(t, 'cart.create', 'cart:write');
  });
});

describe('POST /api/v1/tools/cart.add_item', () => {
  it('adds units to a line and prices the cart with free shipping from the threshold', async () => {
    await makeProduct(t.db, { slug: 'wayfarer', priceDkk: 25_000, stock: 3 });
    const { cartId } = await newCart();
    const once = okResult<CartView>(await t.call('cart.add_item', { cartId, productSlug: 'wayfarer', quantity: 1 }, agent));
    expect(once).toMatchObject({ subtotalDkk: 25_000, shippingDkk: 4900, totalDkk: 29_900 });
    const twice = okResult<CartView>(await t.call('cart.add_item', { cartId, productSlug: 'wayfarer', quantity: 1 }, agent));
    expect(twice).toMatchObject({ subtotalDkk: 50_000, shippingDkk: 0, totalDkk: 50_000, vatOere: 10_000 });
    expect(twice.items).toHaveLength(1);
    const audit = await lastAudit(t, 'cart.add_item', cartId);
    expect(audit.before).toMatchObject({ items: [{ quantity: 1 }] });
    expect(audit.after).toMatchObject({ items: [{ quantity: 2 }] });
  });

  it('accepts more units than in stock but marks the line unavailable', async () => {
    await makeProduct(t.db, { slug: 'scarce', stock: 1 });
    const { cartId } = await newCart();
    const cart = okResult<CartView>(await t.call('cart.add_item', { cartId, productSlug: 'scarce', quantity: 2 }, agent));
    expect(cart.items[0]).toMatchObject({ quantity: 2, available: false });
  });

  it('refuses unknown and deleted products with 404', async () => {
    await makeProduct(t.db, { slug: 'gone', deletedAt: new Date() });
    const { cartId } = await newCart();
    expectProblem(await t.call('cart.add_item', { cartId, productSlug: 'gone', quantity: 1 }, agent), 404, 'not_found');
    expectProblem(await t.call('cart.add_item', { cartId, productSlug: 'nothing', quantity: 1 }, agent), 404, 'not_found');
  });

  it.each([[0], [-1], ['1'], [1.5], [9007199254740992]])('refuses quantity %j with 400', async (quantity) => {
    await makeProduct(t.db, { slug: 'q' });
    const { cartId } = await newCart();
    expectProblem(await t.call('cart.add_item', { cartId, productSlug: 'q', quantity }, agent), 400, 'invalid_request');
  });

  it('refuses a line beyond 2^53 − 1 units, and a cart worth more than 2^53 − 1 øre, with 422 value_out_of_range', async () => {
    await makeProduct(t.db, { slug: 'cheap', priceDkk: 1 });
    await makeProduct(t.db, { slug: 'dear', priceDkk: 2 });
    const { cartId } = await newCart([{ productSlug: 'cheap', quantity: 9007199254740991 }]);
    expectProblem(await t.call('cart.add_item', { cartId, productSlug: 'cheap', quantity: 1 }, agent), 422, 'value_out_of_range');
    expectProblem(await t.call('cart.add_item', { cartId, productSlug: 'dear', quantity: 9007199254740991 }, agent), 422, 'value_out_of_range');
    expect(await t.db.cartItem.count({ where: { cartId } })).toBe(1);
  });

  it('hides another key’s cart (404) and refuses an unknown cart', async () => {
    await makeProduct(t.db, { slug: 'mine' });
    const { cartId } = await newCart();
    expectProblem(await t.call('cart.add_item', { cartId, productSlug: 'mine', quantity: 1 }, admin), 404, 'not_found');
    expectProblem(await t.call('cart.get', { cartId }, admin), 404, 'not_found');
    expectProblem(await t.call('cart.add_item', { cartId: 'nope', productSlug: 'mine', quantity: 1 }, agent), 404, 'not_found');
    expect(await t.db.cartItem.count()).toBe(0);
  });

  it('needs cart:write', async () => {
    await expectScopeEnforced(t, 'cart.add_item', 'cart:write', { cartId: 'x', productSlug: 'y', quantity: 1 });
  });
});

describe('POST /api/v1/tools/cart.update_item', () => {
  it('sets a quantity, and quantity 0 removes the line', async () => {
    await makeProduct(t.db, { slug: 'a', priceDkk: 1000 });
    await makeProduct(t.db, { slug: 'b', priceDkk: 2000 });
    const { cartId } = await newCart([{ productSlug: 'a', quantity: 1 }, { productSlug: 'b', quantity: 1 }]);
    const set = okResult<CartView>(await t.call('cart.update_item', { cartId, productSlug: 'a', quantity: 5 }, agent));
    expect(set.items.map((i) => [i.productSlug, i.quantity])).toEqual([['a', 5], ['b', 1]]);
    const removed = okResult<CartView>(await t.call('cart.update_item', { cartId, productSlug: 'a', quantity: 0 }, agent));
    expect(removed.items.map((i) => i.productSlug)).toEqual(['b']);
    expect(removed.subtotalDkk).toBe(2000);
  });

  it('can remove a product that is no longer sold', async () => {
    const p = await makeProduct(t.db, { slug: 'retired' });
    const { cartId } = await newCart([{ productSlug: 'retired', quantity: 1 }]);
    await t.db.product.update({ where: { id: p.id }, data: { deletedAt: new Date() } });
    expect(okResult<CartView>(await t.call('cart.get', { cartId }, agent)).items[0].available).toBe(false);
    expect(okResult<CartView>(await t.call('cart.update_item', { cartId, productSlug: 'retired', quantity: 0 }, agent)).items).toEqual([]);
  });

  it('answers 404 for a product not in the cart, 400 for a negative quantity', async () => {
    await makeProduct(t.db, { slug: 'absent' });
    const { cartId } = await newCart();
    expectProblem(await t.call('cart.update_item', { cartId, productSlug: 'absent', quantity: 1 }, agent), 404, 'not_found');
    expectProblem(await t.call('cart.update_item', { cartId, productSlug: 'absent', quantity: -1 }, agent), 400, 'invalid_request');
  });

  it('needs cart:write', async () => {
    await expectScopeEnforced(t, 'cart.update_item', 'cart:write', { cartId: 'x', productSlug: 'y', quantity: 0 });
  });
});

describe('POST /api/v1/tools/cart.get', () => {
  it('previews a discount code, matched case-insensitively', async () => {
    await makeProduct(t.db, { slug: 'p', priceDkk: 20_000 });
    await makeDiscount(t.db, { code: 'TENOFF', value: 10 });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 2 }]);
    expect(okResult<CartView>(await t.call('cart.get', { cartId, discountCode: 'tenoff' }, agent))).toMatchObject({
      discountCode: 'TENOFF', subtotalDkk: 40_000, discountDkk: 4000, shippingDkk: 4900, totalDkk: 40_900, vatOere: 8180,
    });
    expect(await usageOf('TENOFF')).toBe(0n);
  });

  it('reports an unusable code with 422 discount_unavailable', async () => {
    await makeProduct(t.db, { slug: 'p' });
    await makeDiscount(t.db, { code: 'OFFLINE', active: false });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    expect(expectProblem(await t.call('cart.get', { cartId, discountCode: 'OFFLINE' }, agent), 422, 'discount_unavailable').detail).toMatch(/inactive/);
    expect(expectProblem(await t.call('cart.get', { cartId, discountCode: 'NOPE' }, agent), 422, 'discount_unavailable').detail).toMatch(/does not exist/);
  });

  it('prices with the current shop settings', async () => {
    await makeProduct(t.db, { slug: 'p', priceDkk: 10_000 });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    okResult(await t.call('settings.update', { shippingFeeDkk: 2500, vatRateBasisPoints: 0, currency: 'EUR' }, admin));
    expect(okResult<CartView>(await t.call('cart.get', { cartId }, agent))).toMatchObject({ currency: 'EUR', shippingDkk: 2500, totalDkk: 12_500, vatOere: 0 });
  });

  it('is a read: it writes no audit entry', async () => {
    const { cartId } = await newCart();
    await resetTables(t.db, 'AuditEntry');
    okResult(await t.call('cart.get', { cartId }, agent));
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('needs cart:write', async () => {
    await expectScopeEnforced(t, 'cart.get', 'cart:write', { cartId: 'x' });
  });
});

describe('POST /api/v1/tools/checkout.create_order', () => {
  it('creates a pending_payment agent order, takes stock, counts the discount use and closes the cart', async () => {
    const a = await makeProduct(t.db, { slug: 'aviator', name: 'Aviator gold', priceDkk: 20_000, stock: 5 });
    const b = await makeProduct(t.db, { slug: 'case', name: 'Hard case', priceDkk: 1_999, stock: 1 });
    await makeDiscount(t.db, { code: 'TENOFF', value: 10, usageLimit: 2 });
    const { cartId } = await newCart([{ productSlug: 'aviator', quantity: 2 }, { productSlug: 'case', quantity: 1 }]);

    const result = okResult<Checkout>(await checkout(cartId, { discountCode: 'tenoff', phoneNumber: '+45 12345678', billingCountry: 'DK' }));
    // 40000 + 1999 = 41999; 10 % = 4199.9 → 4200; goods 37799 < 50000 → shipping 4900; total 42699; VAT 42699 / 5 = 8539.8 → 8540.
    expect(result).toMatchObject({
      status: 'pending_payment', currency: 'DKK', discountCode: 'TENOFF',
      subtotalDkk: 41_999, discountDkk: 4200, shippingDkk: 4900, totalDkk: 42_699, vatOere: 8540,
      payment: { provider: 'manual' },
    });
    // Issue 27: items name the variant bought.
    const variant = { variantId: expect.any(String), sku: null, options: {} };
    expect(result.items).toEqual(expect.arrayContaining([
      { productSlug: 'aviator', productName: 'Aviator gold', ...variant, quantity: 2, unitPriceDkk: 20_000 },
      { productSlug: 'case', productName: 'Hard case', ...variant, quantity: 1, unitPriceDkk: 1_999 },
    ]));

    const order = await t.db.order.findUniqueOrThrow({ where: { id: result.orderId }, include: { items: true } });
    expect(order).toMatchObject({
      status: 'pending_payment', isAiGenerated: true, aiAgentSource: 'shopping-agent', channel: 'agent', currency: 'DKK', fxRate: 1,
      email: 'Buyer@Example.com', shippingName: 'Ada Buyer', phoneNumber: '+45 12345678', billingCountry: 'DK', billingName: null,
      subtotalDkk: 41_999n, discountDkk: 4200n, shippingDkk: 4900n, totalDkk: 42_699n, vatOere: 8540n, discountCode: 'TENOFF',
      paymentMethod: 'manual', paidAt: null,
    });
    expect(order.items.map((i) => [i.productId, i.productName, i.unitPriceDkk, i.quantity]).sort()).toEqual(
      [[a.id, 'Aviator gold', 20_000n, 2n], [b.id, 'Hard case', 1_999n, 1n]].sort(),
    );
    expect(await stockOf(a.id)).toBe(3n);
    expect(await stockOf(b.id)).toBe(0n);
    expect(await usageOf('TENOFF')).toBe(1n);
    expect(await t.db.cart.findUniqueOrThrow({ where: { id: cartId } })).toMatchObject({ status: 'checked_out', orderId: order.id, discountCode: 'TENOFF' });

    const entry = await lastAudit(t, 'checkout.create_order', order.id);
    expect(entry).toMatchObject({ entityType: 'order', before: null });
    expect(entry.meta).toMatchObject({ cartId, discountCode: 'TENOFF' });
    expect((await lastAudit(t, 'checkout.create_order', cartId)).after).toMatchObject({ status: 'checked_out' });

    // The admin sees the order and moves it on.
    const got = okResult<Record<string, unknown>>(await t.call('orders.get', { orderId: order.id }, admin));
    expect(got).toMatchObject({ channel: 'agent', isAiGenerated: true, aiAgentSource: 'shopping-agent', vatOere: 8540 });
    okResult(await t.call('orders.update_status', { orderId: order.id, status: 'paid' }, admin));
  });

  it('prices at the product price of the moment of checkout, and ships free from the threshold', async () => {
    const p = await makeProduct(t.db, { slug: 'p', priceDkk: 10_000 });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 5 }]);
    await t.db.product.update({ where: { id: p.id }, data: { priceDkk: 12_000n } });
    expect(okResult<Checkout>(await checkout(cartId))).toMatchObject({ subtotalDkk: 60_000, shippingDkk: 0, totalDkk: 60_000, vatOere: 12_000 });
  });

  it('uses the shop settings for currency, shipping and VAT', async () => {
    await makeProduct(t.db, { slug: 'p', priceDkk: 10_000 });
    okResult(await t.call('settings.update', { currency: 'EUR', shippingFeeDkk: 1000, freeShippingThresholdDkk: null, vatRateBasisPoints: 1000 }, admin));
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    const result = okResult<Checkout>(await checkout(cartId));
    expect(result).toMatchObject({ currency: 'EUR', shippingDkk: 1000, totalDkk: 11_000, vatOere: 1000 });
    expect((await t.db.order.findUniqueOrThrow({ where: { id: result.orderId } })).currency).toBe('EUR');
  });

  it('checks a cart out only once (422 cart_closed), and closes it to changes', async () => {
    await makeProduct(t.db, { slug: 'p', stock: 10 });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    okResult(await checkout(cartId));
    expectProblem(await checkout(cartId), 422, 'cart_closed');
    expectProblem(await t.call('cart.add_item', { cartId, productSlug: 'p', quantity: 1 }, agent), 422, 'cart_closed');
    expectProblem(await t.call('cart.update_item', { cartId, productSlug: 'p', quantity: 0 }, agent), 422, 'cart_closed');
    const view = okResult<CartView>(await t.call('cart.get', { cartId }, agent));
    expect(view.status).toBe('checked_out');
    expect(view.orderId).toEqual(expect.any(String));
    expect(await t.db.order.count()).toBe(1);
  });

  it('refuses an empty cart with 422 empty_cart', async () => {
    const { cartId } = await newCart();
    expectProblem(await checkout(cartId), 422, 'empty_cart');
    expect((await t.db.cart.findUniqueOrThrow({ where: { id: cartId } })).status).toBe('open');
  });

  it('refuses another key’s cart with 404', async () => {
    await makeProduct(t.db, { slug: 'p' });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    expectProblem(await checkout(cartId, {}, admin), 404, 'not_found');
    expect(await t.db.order.count()).toBe(0);
  });

  it('refuses a short line with 422 out_of_stock and changes nothing', async () => {
    const plenty = await makeProduct(t.db, { slug: 'plenty', stock: 10 });
    const short = await makeProduct(t.db, { slug: 'short', stock: 1 });
    await makeDiscount(t.db, { code: 'ONCE', usageLimit: 1 });
    const { cartId } = await newCart([{ productSlug: 'plenty', quantity: 2 }, { productSlug: 'short', quantity: 2 }]);
    const body = expectProblem(await checkout(cartId, { discountCode: 'ONCE' }), 422, 'out_of_stock');
    expect(body.detail).toMatch(/"short": 2 requested, 1 in stock/);
    expect(await stockOf(plenty.id)).toBe(10n);
    expect(await stockOf(short.id)).toBe(1n);
    expect(await usageOf('ONCE')).toBe(0n);
    expect(await t.db.order.count()).toBe(0);
    expect((await t.db.cart.findUniqueOrThrow({ where: { id: cartId } })).status).toBe('open');
  });

  it('refuses a product deleted after it was put in the cart with 422 out_of_stock', async () => {
    const p = await makeProduct(t.db, { slug: 'pulled', stock: 5 });
    const { cartId } = await newCart([{ productSlug: 'pulled', quantity: 1 }]);
    await t.db.product.update({ where: { id: p.id }, data: { deletedAt: new Date() } });
    expect(expectProblem(await checkout(cartId), 422, 'out_of_stock').detail).toMatch(/no longer sold/);
    expect(await stockOf(p.id)).toBe(5n);
  });

  it.each([
    ['unknown', null, /does not exist/],
    ['inactive', { active: false }, /inactive/],
    ['expired', { validUntil: new Date(Date.now() - 1000) }, /expired/],
    ['used up', { usageLimit: 2, usageCount: 2 }, /used up/],
  ] as const)('refuses an %s code with 422 discount_unavailable and changes nothing', async (_name, opts, reason) => {
    const p = await makeProduct(t.db, { slug: 'p', stock: 4 });
    if (opts) await makeDiscount(t.db, { code: 'PROMO', ...opts });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    const body = expectProblem(await checkout(cartId, { discountCode: 'promo' }), 422, 'discount_unavailable');
    expect(body.detail).toMatch(reason);
    expect(await stockOf(p.id)).toBe(4n);
    expect(await t.db.order.count()).toBe(0);
    if (opts) expect(await usageOf('PROMO')).toBe(BigInt('usageCount' in opts ? opts.usageCount : 0));
  });

  it.each([
    ['a bad email', { email: 'buyer' }],
    ['a missing shippingCity', { shippingCity: undefined }],
    ['an empty shippingName', { shippingName: '' }],
    ['an unknown field', { isAiGenerated: false }],
  ])('refuses %s with 400', async (_name, body) => {
    await makeProduct(t.db, { slug: 'p' });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    expectProblem(await checkout(cartId, body), 400, 'invalid_request');
  });

  it('refuses a NUL byte in the address with 400 invalid_text', async () => {
    await makeProduct(t.db, { slug: 'p' });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    expect(expectProblem(await checkout(cartId, { shippingAddress: 'Vej\u00001' }), 400, 'invalid_text').detail).toContain('shippingAddress');
    expect(await t.db.order.count()).toBe(0);
  });

  it('persists nothing on a dry run, but reports the order it would create', async () => {
    const p = await makeProduct(t.db, { slug: 'p', stock: 2 });
    await makeDiscount(t.db, { code: 'DRY', usageLimit: 1 });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 2 }]);
    const res = await checkout(cartId, { discountCode: 'DRY', dryRun: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ dryRun: true, result: { status: 'pending_payment', discountCode: 'DRY' } });
    expect(await stockOf(p.id)).toBe(2n);
    expect(await usageOf('DRY')).toBe(0n);
    expect(await t.db.order.count()).toBe(0);
    expect((await t.db.cart.findUniqueOrThrow({ where: { id: cartId } })).status).toBe('open');
    okResult(await checkout(cartId, { discountCode: 'DRY' }));
  });

  it('gives stock and the discount use back when the order is cancelled', async () => {
    const p = await makeProduct(t.db, { slug: 'p', stock: 1 });
    await makeDiscount(t.db, { code: 'BACK', usageLimit: 1 });
    const { orderId } = okResult<Checkout>(await checkout((await newCart([{ productSlug: 'p', quantity: 1 }])).cartId, { discountCode: 'BACK' }));
    expect([await stockOf(p.id), await usageOf('BACK')]).toEqual([0n, 1n]);
    okResult(await t.call('orders.update_status', { orderId, status: 'cancelled' }, admin));
    expect([await stockOf(p.id), await usageOf('BACK')]).toEqual([1n, 0n]);
    // …so the next buyer can have both.
    okResult(await checkout((await newCart([{ productSlug: 'p', quantity: 1 }])).cartId, { discountCode: 'BACK' }));
  });

  it('needs cart:write', async () => {
    await expectScopeEnforced(t, 'checkout.create_order', 'cart:write', { cartId: 'x', ...CHECKOUT_CONTACT });
  });
});

describe('checkout.create_order under concurrency', () => {
  /** A cart of the agent's, written straight to the database (the cart tools are tested above). */
  async function dbCart(items: CartLine[]) {
    const products = await t.db.product.findMany({ where: { slug: { in: items.map((i) => i.productSlug) } } });
    const id = (slug: string) => products.find((p) => p.slug === slug)!.id;
    const cart = await t.db.cart.create({
      data: { apiKeyId: agentId, items: { create: items.map((i) => ({ productId: id(i.productSlug), quantity: BigInt(i.quantity) })) } },
    });
    return cart.id;
  }

  /** n carts of the given items, then n checkouts fired at once. */
  async function race(n: number, items: CartLine[], body: Record<string, unknown> = {}) {
    const carts = await Promise.all(Array.from({ length: n }, () => dbCart(items)));
    return concurrently(n, (i) => checkout(carts[i], body));
  }

  const outcome = (responses: Awaited<ReturnType<typeof race>>, code: string) => {
    const failed = responses.filter((r) => r.statusCode !== 200);
    for (const r of failed) expectProblem(r, 422, code);
    return responses.length - failed.length;
  };

  it('sells the last unit exactly once when 20 checkouts race for it', async () => {
    const p = await makeProduct(t.db, { slug: 'last', stock: 1 });
    expect(outcome(await race(20, [{ productSlug: 'last', quantity: 1 }]), 'out_of_stock')).toBe(1);
    expect(await stockOf(p.id)).toBe(0n);
    expect(await t.db.order.count()).toBe(1);
    expect(await t.db.orderItem.count()).toBe(1);
    expect(await t.db.cart.count({ where: { status: 'checked_out' } })).toBe(1);
  });

  it('sells exactly 3 of stock 3 to 10 racing checkouts, never going below zero', async () => {
    const p = await makeProduct(t.db, { slug: 'three', stock: 3 });
    expect(outcome(await race(10, [{ productSlug: 'three', quantity: 1 }]), 'out_of_stock')).toBe(3);
    expect(await stockOf(p.id)).toBe(0n);
    expect(await t.db.order.count()).toBe(3);
  });

  it('never oversells across products locked in different cart orders', async () => {
    const a = await makeProduct(t.db, { slug: 'a-side', stock: 4 });
    const b = await makeProduct(t.db, { slug: 'b-side', stock: 4 });
    const carts = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      dbCart(i % 2 ? [{ productSlug: 'a-side', quantity: 1 }, { productSlug: 'b-side', quantity: 1 }] : [{ productSlug: 'b-side', quantity: 1 }, { productSlug: 'a-side', quantity: 1 }])));
    const responses = await concurrently(12, (i) => checkout(carts[i]));
    expect(outcome(responses, 'out_of_stock')).toBe(4);
    expect([await stockOf(a.id), await stockOf(b.id)]).toEqual([0n, 0n]);
  });

  it('lets a code with usageLimit 1 be used once by 20 racing checkouts', async () => {
    await makeProduct(t.db, { slug: 'many', stock: 100 });
    await makeDiscount(t.db, { code: 'SINGLE', usageLimit: 1 });
    expect(outcome(await race(20, [{ productSlug: 'many', quantity: 1 }], { discountCode: 'SINGLE' }), 'discount_unavailable')).toBe(1);
    expect(await usageOf('SINGLE')).toBe(1n);
    expect(await t.db.order.count()).toBe(1);
    expect((await t.db.product.findUniqueOrThrow({ where: { slug: 'many' } })).stock).toBe(99n);
  });

  it('lets a code with usageLimit 5 be used exactly 5 times by 20 racing checkouts', async () => {
    await makeProduct(t.db, { slug: 'many', stock: 100 });
    await makeDiscount(t.db, { code: 'FIVE', usageLimit: 5 });
    expect(outcome(await race(20, [{ productSlug: 'many', quantity: 1 }], { discountCode: 'FIVE' }), 'discount_unavailable')).toBe(5);
    expect(await usageOf('FIVE')).toBe(5n);
    expect(await t.db.order.count({ where: { discountCode: 'FIVE' } })).toBe(5);
    expect((await t.db.product.findUniqueOrThrow({ where: { slug: 'many' } })).stock).toBe(95n);
  });

  it('checks one cart out once when 10 checkouts of it race', async () => {
    await makeProduct(t.db, { slug: 'p', stock: 100 });
    const { cartId } = await newCart([{ productSlug: 'p', quantity: 1 }]);
    const responses = await concurrently(10, () => checkout(cartId));
    expect(outcome(responses, 'cart_closed')).toBe(1);
    expect(await t.db.order.count()).toBe(1);
    expect((await t.db.product.findUniqueOrThrow({ where: { slug: 'p' } })).stock).toBe(99n);
  });
});
