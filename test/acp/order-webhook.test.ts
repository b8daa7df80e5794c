// ACP order events: the body of order_create / order_update is the protocol's WebhookEvent (its Order validated
// against the JSON Schema) and Merchant-Signature verifies with the shared secret as the platform checks it.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { merchantSignature, orderWebhook, verifyMerchantSignature } from '../../src/protocols/acp/order-webhook.ts';
import { expectSchema } from './helpers.ts';

const SECRET = 'whsec_acp_platform_secret';
const order = {
  id: 'ord_1', status: 'paid', subtotalDkk: 600, discountDkk: 0, shippingDkk: 100, totalDkk: 700,
  items: [{ id: 'oi_1', productName: 'Vintage Denim Jacket', unitPriceDkk: 300, quantity: 2 }],
};

describe('ACP order webhooks', () => {
  it('sends order_create with the full Order, signed with Merchant-Signature', () => {
    const now = new Date('2026-11-27T10:00:00Z');
    const { body, headers } = orderWebhook({ eventId: 'evt_1', eventType: 'order.created', data: JSON.stringify({ object: order }), sessionId: 'cs_1' }, SECRET, 'https://shop.example.com', now);
    const event = JSON.parse(body);
    expect(event.type).toBe('order_create');
    expect(event.data).toMatchObject({ type: 'order', id: 'ord_1', checkout_session_id: 'cs_1', status: 'confirmed' });
    expectSchema(event.data, 'Order');
    expect(headers['merchant-signature']).toMatch(/^t=\d+,v1=[a-f0-9]{64}$/);
    expect(verifyMerchantSignature(headers['merchant-signature'], body, SECRET, now)).toBe(true);
    expect(verifyMerchantSignature(headers['merchant-signature'], `${body} `, SECRET, now)).toBe(false);
    expect(verifyMerchantSignature(headers['merchant-signature'], body, 'another secret', now)).toBe(false);
    expect(verifyMerchantSignature(headers['merchant-signature'], body, SECRET, new Date(now.getTime() + 600_000))).toBe(false);
  });

  it('sends later changes as order_update', () => {
    const { body } = orderWebhook({ eventId: 'evt_2', eventType: 'order.status_changed', data: JSON.stringify({ object: { ...order, status: 'shipped' } }), sessionId: 'cs_1' }, SECRET, 'https://shop.example.com', new Date());
    const event = JSON.parse(body);
    expect(event.type).toBe('order_update');
    expect(event.data.status).toBe('shipped');
    expect(event.data.line_items[0].quantity).toEqual({ ordered: 2, current: 2, fulfilled: 2 });
    expectSchema(event.data, 'Order');
  });

  it('signs "<t>.<raw body>" with HMAC-SHA256 as the protocol writes it', () => {
    const expected = createHmac('sha256', 'k').update('1700000000.{}').digest('hex');
    expect(merchantSignature('{}', 'k', new Date(1_700_000_000_000))).toBe(`t=1700000000,v1=${expected}`);
  });
});
