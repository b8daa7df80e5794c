// A storefront checkout with PAYMENTS_PROVIDER=stripe (docs/payments.md, docs/storefront.md): the order is placed
// through the same placeOrder, then the shopper is sent to Stripe Checkout, opened after the order committed, and
// Stripe sends them back to the order's signed page. With Stripe out of reach the order stands and its page is shown.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { paymentsWorld, sessionOf, type PaymentsWorld } from './setup.ts';

let w: PaymentsWorld;
let offline: PaymentsWorld;
beforeAll(async () => {
  [w, offline] = await Promise.all([paymentsWorld(), paymentsWorld({ stripeUrl: 'http://127.0.0.1:9' })]);
});
afterAll(async () => {
  await Promise.all([w?.close(), offline?.close()]);
});

/** A shopper's browser: keeps the shop's cookie. */
function browser(world: PaymentsWorld) {
  let cookie = '';
  const keep = (res: LightMyRequestResponse) => {
    const set = res.headers['set-cookie'];
    const first = Array.isArray(set) ? set[0] : set;
    if (first) cookie = first.split(';')[0]!;
    return res;
  };
  return {
    get: async (url: string) => keep(await world.t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} })),
    post: async (url: string, fields: Record<string, string>) => keep(await world.t.app.inject({
      method: 'POST', url, payload: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    })),
  };
}

/** Adds the world's product to a new shopper's cart and posts the checkout form; the answer to that post. */
async function buyOnStorefront(world: PaymentsWorld, email: string) {
  const b = browser(world);
  const page = await b.get(`/products/${world.product.slug}`);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
  const variant = await world.t.db.productVariant.findFirstOrThrow({ where: { productId: world.product.id } });
  expect((await b.post('/cart/items', { _csrf: token, variantId: variant.id, quantity: '2' })).statusCode).toBe(303);
  const checkout = await b.get('/checkout');
  const expectedTotal = /name="expectedTotal" value="(\d+)"/.exec(checkout.body)![1]!;
  const placed = await b.post('/checkout', {
    _csrf: token, expectedTotal, email, shippingName: 'Kim Larsen', shippingAddress: 'Havnegade 1', shippingZip: '6700',
    shippingCity: 'Esbjerg', phoneNumber: '', terms: 'accepted',
  });
  return { b, placed };
}

it('sends the shopper to Stripe Checkout for the placed order, and Stripe back to its signed page', async () => {
  const { placed } = await buyOnStorefront(w, 'stripe-web@example.dk');
  expect(placed.statusCode).toBe(303);
  const order = await w.t.db.order.findFirstOrThrow({ where: { email: 'stripe-web@example.dk' } });
  // Two units at 100.00 DKK and the shop's shipping fee.
  expect(order).toMatchObject({ channel: 'web', status: 'pending_payment', subtotalDkk: 20_000n });
  const session = sessionOf(w.stripe, order.id);
  expect(placed.headers.location).toBe(session.url);
  expect(order.stripeCheckoutSessionId).toBe(session.id);
  expect(session.success_url).toMatch(/^https:\/\/shop\.example\.com\/orders\/[^/]+\/[A-Za-z0-9_-]{43}\?payment=paid$/);
  expect(session.cancel_url).toMatch(/\?payment=cancelled$/);
  const back = await browser(w).get(String(session.success_url).replace('https://shop.example.com', ''));
  expect(back.statusCode).toBe(200);
  expect(back.body).toContain(order.id);
});

it('keeps the order and shows its page when Stripe cannot be reached', async () => {
  const { placed } = await buyOnStorefront(offline, 'stripe-down@example.dk');
  expect(placed.statusCode).toBe(303);
  expect(String(placed.headers.location)).toMatch(/^\/orders\/[^/]+\/[A-Za-z0-9_-]{43}\?placed=1$/);
  const order = await offline.t.db.order.findFirstOrThrow({ where: { email: 'stripe-down@example.dk' } });
  expect(order).toMatchObject({ channel: 'web', status: 'pending_payment', stripeCheckoutSessionId: null });
});
