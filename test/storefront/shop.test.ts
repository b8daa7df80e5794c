// Buying on the storefront over HTTP (docs/storefront.md, "Buying on the storefront"): the cart cookie and form
// tokens, the cart's forms, checkout through the same placeOrder as the tools (channel web, audited, stock taken),
// the order page behind its signed link, and the shop's language on these pages.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { seededStorefront } from './helpers.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await seededStorefront());
  okResult(await t.call('settings.update', { language: 'en' }, key));
});
afterAll(() => t?.close());

/** A browser: keeps the cookie the shop sets and sends it back. */
class Browser {
  cookie = '';
  async get(url: string) {
    return this.keep(await t.app.inject({ method: 'GET', url, headers: this.cookie ? { cookie: this.cookie } : {} }));
  }
  async post(url: string, fields: Record<string, string>) {
    return this.keep(
      await t.app.inject({
        method: 'POST', url, payload: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      }),
    );
  }
  private keep(res: LightMyRequestResponse) {
    const set = res.headers['set-cookie'];
    const first = Array.isArray(set) ? set[0] : set;
    if (first) this.cookie = first.split(';')[0]!;
    return res;
  }
}

const tokenOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
/** An in-stock product sold in one variant, and one with options. */
async function products() {
  const single = await t.db.product.findFirstOrThrow({ where: { deletedAt: null, stock: { gt: 5 }, options: { none: {} } }, orderBy: { slug: 'asc' }, include: { variants: true } });
  const optioned = await t.db.product.findFirstOrThrow({ where: { deletedAt: null, options: { some: {} } }, orderBy: { slug: 'asc' }, include: { variants: { where: { deletedAt: null, stock: { gt: 0 } }, orderBy: { position: 'asc' } } } });
  return { single, optioned };
}

describe('the cart cookie and form tokens', () => {
  it('sets a signed, HttpOnly, SameSite=Lax cookie on the product page and puts its token in the add form; the page is private', async () => {
    const { single } = await products();
    const b = new Browser();
    const res = await b.get(`/products/${single.slug}`);
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/^shop_cart=web_[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.vary).toBe('Cookie');
    expect(res.body).toContain('<form class="buy" method="post" action="/cart/items">');
    expect(tokenOf(res.body)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body).not.toContain('<script>');
    // The same shopper gets the same page and validator, without a new cookie.
    const again = await b.get(`/products/${single.slug}`);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.headers.etag).toBe(res.headers.etag);
    expect(tokenOf(again.body)).toBe(tokenOf(res.body));
  });

  it('refuses a post without the token, with another shopper’s token, or with a forged cookie, and changes nothing', async () => {
    const { single } = await products();
    const [a, b] = [new Browser(), new Browser()];
    const tokenA = tokenOf((await a.get(`/products/${single.slug}`)).body);
    await b.get(`/products/${single.slug}`);
    const carts = await t.db.cart.count();
    expect((await a.post('/cart/items', { variantId: single.variants[0]!.id, quantity: '1' })).statusCode).toBe(403);
    const cross = await b.post('/cart/items', { _csrf: tokenA, variantId: single.variants[0]!.id, quantity: '1' });
    expect(cross.statusCode).toBe(403);
    expect(cross.body).toContain('This form expired or was not sent from this shop.');
    const forged = new Browser();
    forged.cookie = `shop_cart=web_AAAAAAAAAAAAAAAAAAAAAA.${'A'.repeat(43)}`;
    expect((await forged.post('/cart/items', { _csrf: tokenA, variantId: single.variants[0]!.id, quantity: '1' })).statusCode).toBe(403);
    expect(await t.db.cart.count()).toBe(carts);
  });
});

describe('buying', () => {
  it('adds a variant, changes and removes lines, applies a code, checks out as channel web and shows the order by its signed link', async () => {
    const { single, optioned } = await products();
    const variant = optioned.variants[0]!;
    const b = new Browser();
    const token = tokenOf((await b.get(`/products/${optioned.slug}`)).body);
    expect((await b.get(`/products/${optioned.slug}`)).body).toContain(`<option value="${variant.id}" selected>`);

    const added = await b.post('/cart/items', { _csrf: token, variantId: variant.id, quantity: '2' });
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe('/cart');
    expect((await b.post('/cart/items', { _csrf: token, variantId: single.variants[0]!.id, quantity: '1' })).statusCode).toBe(303);

    let cart = await b.get('/cart');
    expect(cart.statusCode).toBe(200);
    expect(cart.headers['cache-control']).toBe('no-store');
    expect(cart.body).toContain(single.name);
    expect(cart.body).toContain(optioned.name);
    expect(cart.body).toMatch(/name="quantity" min="0" max="99" value="2"/);

    expect((await b.post('/cart/lines', { _csrf: token, variantId: variant.id, quantity: '3' })).statusCode).toBe(303);
    expect((await b.post('/cart/lines', { _csrf: token, variantId: single.variants[0]!.id, quantity: '1', remove: '1' })).statusCode).toBe(303);
    cart = await b.get('/cart');
    expect(cart.body).not.toContain(`>${single.name}</a>`);
    expect(cart.body).toMatch(/name="quantity" min="0" max="99" value="3"/);

    const badCode = await b.post('/cart/discount', { _csrf: token, code: 'NOPE' });
    expect(badCode.statusCode).toBe(422);
    expect(badCode.body).toContain('NOPE');
    expect((await b.post('/cart/discount', { _csrf: token, code: 'welcome10' })).statusCode).toBe(303);
    cart = await b.get('/cart');
    expect(cart.body).toContain('<strong>WELCOME10</strong>');
    const priced = await t.db.cart.findFirstOrThrow({ where: { discountCode: 'WELCOME10', status: 'open' }, include: { items: true } });

    const checkout = await b.get('/checkout');
    expect(checkout.statusCode).toBe(200);
    expect(checkout.body).toContain('name="terms"');
    const expectedTotal = /name="expectedTotal" value="(\d+)"/.exec(checkout.body)![1]!;

    const missing = await b.post('/checkout', { _csrf: token, expectedTotal, email: 'not-an-address', shippingName: '', shippingAddress: 'Havnegade 1', shippingZip: '6700', shippingCity: 'Esbjerg' });
    expect(missing.statusCode).toBe(422);
    expect(missing.body).toContain('id="f-email"');
    expect(missing.body).toMatch(/id="f-email"[^>]*aria-invalid="true"/);
    expect(missing.body).toMatch(/id="f-terms"[^>]*aria-invalid="true"/);
    expect(missing.body).toContain('value="Havnegade 1"');
    expect(await t.db.order.count({ where: { email: 'kim@example.dk' } })).toBe(0);

    const stockBefore = (await t.db.productVariant.findUniqueOrThrow({ where: { id: variant.id } })).stock;
    const placed = await b.post('/checkout', {
      _csrf: token, expectedTotal, email: 'kim@example.dk', shippingName: 'Kim Larsen', shippingAddress: 'Havnegade 1', shippingZip: '6700',
      shippingCity: 'Esbjerg', phoneNumber: '', terms: 'accepted',
    });
    expect(placed.statusCode).toBe(303);
    const link = String(placed.headers.location);
    expect(link).toMatch(/^\/orders\/[^/]+\/[A-Za-z0-9_-]{43}\?placed=1$/);

    const order = await t.db.order.findFirstOrThrow({ where: { email: 'kim@example.dk' }, include: { items: true } });
    expect(order).toMatchObject({ channel: 'web', isAiGenerated: false, aiAgentSource: null, status: 'pending_payment', discountCode: 'WELCOME10', totalDkk: BigInt(expectedTotal) });
    expect(order.items).toHaveLength(priced.items.length);
    expect((await t.db.productVariant.findUniqueOrThrow({ where: { id: variant.id } })).stock).toBe(stockBefore - 3n);
    expect(await t.db.cart.findUniqueOrThrow({ where: { id: priced.id } })).toMatchObject({ status: 'checked_out', orderId: order.id });
    const audit = await t.db.auditEntry.findMany({ where: { tool: 'storefront.checkout' } });
    expect(audit.map((e) => e.entityType).sort()).toEqual(['cart', 'order']);
    expect(audit.every((e) => e.apiKeyId === null)).toBe(true);
    expect(await t.db.webhookEvent.count({ where: { type: 'order.created', entityId: order.id } })).toBe(1);

    const page = await b.get(link);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).toContain(order.id);
    expect(page.body).toContain(optioned.name);
    expect(page.body).toContain('<meta name="robots" content="noindex"/>');

    // The link is the key: a changed signature, or the order id alone, shows nothing.
    const other = new Browser();
    expect((await other.get(link.replace(/\/([A-Za-z0-9_-])([A-Za-z0-9_-]{42})\?/, (_m, c: string, rest: string) => `/${c === 'A' ? 'B' : 'A'}${rest}?`))).statusCode).toBe(404);
    expect((await other.get(`/orders/${order.id}`)).statusCode).toBe(404);
    expect((await other.get(link)).statusCode).toBe(200);

    // Tracking shows once the order is shipped.
    for (const status of ['paid', 'processing', 'shipped']) okResult(await t.call('orders.update_status', { orderId: order.id, status }, key));
    await t.db.order.update({ where: { id: order.id }, data: { carrier: 'PostNord', trackingNumber: 'PN123456789DK', trackingUrl: 'https://tracking.example.com/PN123456789DK' } });
    const shipped = await other.get(link);
    expect(shipped.body).toContain('PostNord');
    expect(shipped.body).toContain('PN123456789DK');
    expect(shipped.body).toContain('href="https://tracking.example.com/PN123456789DK"');

    // The cart is gone after checkout; the checkout page sends an empty cart back to it.
    expect((await b.get('/checkout')).headers.location).toBe('/cart');
  });

  /** A new shopper with `quantity` of the single-variant product in the cart, at the checkout page. */
  async function atCheckout(quantity: number) {
    const { single } = await products();
    const b = new Browser();
    const token = tokenOf((await b.get(`/products/${single.slug}`)).body);
    await b.post('/cart/items', { _csrf: token, variantId: single.variants[0]!.id, quantity: String(quantity) });
    const expectedTotal = /name="expectedTotal" value="(\d+)"/.exec((await b.get('/checkout')).body)![1]!;
    return { b, token, expectedTotal, variant: single.variants[0]! };
  }

  it('refuses a checkout whose total changed since the page was shown, and places nothing', async () => {
    const { b, token, expectedTotal } = await atCheckout(1);
    const res = await b.post('/checkout', {
      _csrf: token, expectedTotal: String(Number(expectedTotal) - 100), email: 'late@example.dk', shippingName: 'Late Buyer', shippingAddress: 'Vej 2',
      shippingZip: '8000', shippingCity: 'Aarhus', terms: 'accepted',
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Your cart changed while you checked out.');
    expect(await t.db.order.count({ where: { email: 'late@example.dk' } })).toBe(0);
  });

  it('says so when the stock ran out before checkout', async () => {
    const { b, token, expectedTotal, variant } = await atCheckout(2);
    await t.db.productVariant.update({ where: { id: variant.id }, data: { stock: 1n } });
    const res = await b.post('/checkout', {
      _csrf: token, expectedTotal, email: 'short@example.dk', shippingName: 'Short Stock', shippingAddress: 'Vej 3', shippingZip: '8000', shippingCity: 'Aarhus', terms: 'accepted',
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('no longer in stock');
    expect(await t.db.order.count({ where: { email: 'short@example.dk' } })).toBe(0);
    await t.db.productVariant.update({ where: { id: variant.id }, data: { stock: variant.stock } });
  });
});

describe('the shop’s language', () => {
  it('writes the pages, their lang and Content-Language, prices and dates in Danish or English as the settings say', async () => {
    const { single } = await products();
    const b = new Browser();
    okResult(await t.call('settings.update', { language: 'da' }, key));
    let res = await b.get(`/products/${single.slug}`);
    expect(res.body).toContain('<html lang="da">');
    expect(res.headers['content-language']).toBe('da');
    expect(res.body).toContain('Læg i kurven');
    expect(res.body).toMatch(/\d,\d\d\u00a0kr\./);
    expect((await b.get('/cart')).body).toContain('Din kurv');

    okResult(await t.call('settings.update', { language: 'en' }, key));
    res = await b.get(`/products/${single.slug}`);
    expect(res.body).toContain('<html lang="en">');
    expect(res.headers['content-language']).toBe('en');
    expect(res.body).toContain('Add to cart');
    expect(res.body).toMatch(/DKK\u00a0[\d,]+\.\d\d/);
    expect((await b.get('/cart')).body).toContain('Your cart');

    // A language without a catalogue gets the English one, and the page says it is in English.
    okResult(await t.call('settings.update', { language: 'de' }, key));
    res = await b.get('/');
    expect(res.body).toContain('<html lang="en">');
    expect(res.headers['content-language']).toBe('en');
    okResult(await t.call('settings.update', { language: 'en' }, key));
  });
});
