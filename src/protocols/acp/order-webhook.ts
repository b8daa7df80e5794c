// An ACP platform's order event (docs/agentic-checkout.md, "ACP order webhooks"): `order_create` or `order_update`
// with the full Order as `data`, signed with the platform's shared secret in `Merchant-Signature:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. Built from the order as the outbox event carries it
// (orders.get's shape). The delivery worker (src/events/delivery-worker.ts) sends it to an endpoint of format `acp`
// whose creator is the platform's key, for orders of that key's ACP sessions only, with the endpoint's secret.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { orderStatusOf, permalinkOf } from './operations.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** The header value for a body sent at `now`. */
export function merchantSignature(body: string, secret: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** Checks a Merchant-Signature as the receiving platform does (within `toleranceS` seconds of `now`). */
export function verifyMerchantSignature(header: string, body: string, secret: string, now: Date, toleranceS = 300): boolean {
  const m = /^t=(\d+),v1=([a-f0-9]{64})$/i.exec(header);
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(now.getTime() / 1000 - t) > toleranceS) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  const given = Buffer.from(m[2].toLowerCase());
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The protocol's Order of an order placed from ACP session `sessionId`, from the event's order object. */
export function orderOf(object: Json, sessionId: string, base: string) {
  const items = Array.isArray(object.items) ? object.items.filter(isObject) : [];
  const shipped = str(object.status) === 'shipped' || str(object.status) === 'delivered';
  return {
    type: 'order' as const,
    id: str(object.id),
    checkout_session_id: sessionId,
    permalink_url: permalinkOf(base, sessionId),
    status: orderStatusOf(str(object.status)),
    line_items: items.map((i) => ({
      id: str(i.id), title: str(i.productName),
      quantity: { ordered: num(i.quantity), current: num(i.quantity), fulfilled: shipped ? num(i.quantity) : 0 },
      unit_price: num(i.unitPriceDkk), subtotal: num(i.unitPriceDkk) * num(i.quantity),
    })),
    totals: [
      { type: 'subtotal', display_text: 'Subtotal', amount: num(object.subtotalDkk) - num(object.discountDkk) },
      { type: 'fulfillment', display_text: 'Shipping', amount: num(object.shippingDkk) },
      { type: 'total', display_text: 'Total', amount: num(object.totalDkk) },
    ],
  };
}

/** Body and headers of one delivery: `order_create` for the order's creation event, `order_update` for later ones. */
export function orderWebhook(
  e: { eventId: string; eventType: string; data: string; sessionId: string },
  secret: string,
  base: string,
  now: Date,
): { body: string; headers: Record<string, string> } {
  const data: unknown = JSON.parse(e.data);
  const object = isObject(data) && isObject(data.object) ? data.object : {};
  const body = JSON.stringify({ type: e.eventType === 'order.created' ? 'order_create' : 'order_update', data: orderOf(object, e.sessionId, base) });
  return {
    body,
    headers: {
      'content-type': 'application/json', 'request-id': e.eventId, timestamp: now.toISOString(), 'merchant-signature': merchantSignature(body, secret, now),
    },
  };
}
