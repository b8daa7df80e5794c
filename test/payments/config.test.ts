// The payment settings (docs/payments.md, "Settings"; docs/deploy.md): checked at start, secrets never echoed.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

const KEY = 'sk_test_secretValue123';
const WHSEC = 'whsec_secretSigning456';

describe('payment settings', () => {
  it('default to manual with no Stripe settings', () => {
    expect(loadConfig({}).payments).toEqual({ provider: 'manual', stripe: undefined });
  });

  it('read the Stripe keys, the payment methods (card and MobilePay by default) and a test API address', () => {
    const c = loadConfig({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: WHSEC, STRIPE_API_URL: 'http://127.0.0.1:1234', OUTBOUND_ALLOW_PRIVATE: '1' });
    expect(c.payments.provider).toBe('stripe');
    expect(c.payments.stripe).toMatchObject({ secretKey: KEY, webhookSecret: WHSEC, paymentMethods: ['card', 'mobilepay'] });
    expect(c.payments.stripe?.apiUrl?.port).toBe('1234');
    expect(loadConfig({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: WHSEC, STRIPE_PAYMENT_METHODS: 'card' }).payments.stripe?.paymentMethods).toEqual(['card']);
  });

  it('refuse stripe without its keys, a malformed key without echoing it, and a plain-http or production API address', () => {
    expect(() => loadConfig({ PAYMENTS_PROVIDER: 'stripe' })).toThrow(/STRIPE_SECRET_KEY: required[\s\S]*STRIPE_WEBHOOK_SECRET: required/);
    let message = '';
    try {
      loadConfig({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'pk_live_notASecretKey789', STRIPE_WEBHOOK_SECRET: WHSEC });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/Invalid setting STRIPE_SECRET_KEY/);
    expect(message).not.toContain('notASecretKey789');
    expect(() => loadConfig({ STRIPE_API_URL: 'http://127.0.0.1:1' })).toThrow(/STRIPE_API_URL: must be an https URL/);
    expect(() => loadConfig({ STRIPE_API_URL: 'https://stripe.test', NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://x.example', SECRETS_KEY: 'a'.repeat(44) }, )).toThrow(/STRIPE_API_URL: only for tests/);
    expect(() => loadConfig({ STRIPE_PAYMENT_METHODS: 'card,Mobile Pay' })).toThrow(/STRIPE_PAYMENT_METHODS/);
  });
});
