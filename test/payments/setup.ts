// Shared setup of the payment tests: the service with PAYMENTS_PROVIDER=stripe against the fake Stripe API, a
// product to sell, a checkout, and Stripe's events delivered to the webhook route.
import { expect } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createCart, createProduct } from '../helpers/factories.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-server.ts';

export const WEBHOOK_PATH = '/api/payments/stripe/webhook';

export type Checkout = {
  orderId: string; status: string; totalDkk: number;
  payment: { provider: string; instructions: string; url?: string | null; expiresAt?: string | null };
};

export type PaymentsWorld = {
  t: TestApp;
  stripe: FakeStripe;
  key: string;
  /** A product with 1,000 units at 100.00 DKK. */
  product: { id: string; slug: string };
  checkout: (quantity?: number, discountCode?: string) => Promise<Checkout>;
  /** The order as orders.get returns it. */
  order: (orderId: string) => Promise<Record<string, unknown> & { status: string; refundedDkk: number }>;
  /** Signs the event and posts it to the webhook route. */
  deliver: (event: Record<string, unknown>, opts?: { secret?: string; timestamp?: number }) => Promise<{ statusCode: number; body: string; json: () => Record<string, unknown> }>;
  /** Checkout, then the buyer pays and checkout.session.completed arrives; the order is paid. */
  paidOrder: (method?: string) => Promise<{ orderId: string; intentId: string; chargeId: string; sessionId: string }>;
  close: () => Promise<void>;
};

export const stripeEnv = (stripe: { url: string; secretKey: string; webhookSecret: string }) => ({
  PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_URL: stripe.url,
  OUTBOUND_ALLOW_PRIVATE: '1', PUBLIC_BASE_URL: 'https://shop.example.com',
});

export async function paymentsWorld(opts: { env?: Record<string, string>; stripeUrl?: string } = {}): Promise<PaymentsWorld> {
  const stripe = await startFakeStripe();
  const t = await createTestApp({ env: { ...stripeEnv({ ...stripe, url: opts.stripeUrl ?? stripe.url }), ...opts.env } });
  const key = await t.key();
  const product = await createProduct(t, key, { priceDkk: 10_000, stock: 1000 });
  const world: PaymentsWorld = {
    t, stripe, key, product,
    async checkout(quantity = 1, discountCode) {
      const { cartId } = await createCart(t, key, [{ productSlug: product.slug, quantity }]);
      return okResult<Checkout>(await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT, ...(discountCode ? { discountCode } : {}) }, key));
    },
    order: async (orderId) => okResult(await t.call('orders.get', { orderId }, key)),
    async deliver(event, signOpts) {
      const { payload, headers } = stripe.signed(event, signOpts);
      const res = await t.app.inject({ method: 'POST', url: WEBHOOK_PATH, headers, payload });
      return { statusCode: res.statusCode, body: res.body, json: () => res.json() };
    },
    async paidOrder(method = 'card') {
      const placed = await world.checkout();
      const sessionId = [...stripe.sessions.values()].find((s) => (s.metadata as Record<string, string>).orderId === placed.orderId)!.id as string;
      const { session, intent, charge } = stripe.pay(sessionId, method);
      const res = await world.deliver(stripe.event('checkout.session.completed', session));
      expect(res.statusCode, res.body).toBe(200);
      expect((await world.order(placed.orderId)).status).toBe('paid');
      return { orderId: placed.orderId, intentId: intent.id as string, chargeId: charge.id as string, sessionId };
    },
    close: async () => {
      await t.close();
      await stripe.close();
    },
  };
  return world;
}

/** The session the fake holds for an order. */
export const sessionOf = (stripe: FakeStripe, orderId: string) =>
  [...stripe.sessions.values()].find((s) => (s.metadata as Record<string, string>).orderId === orderId)!;
