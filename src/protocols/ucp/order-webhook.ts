// A UCP platform's order webhook (docs/agentic-checkout.md, "Order webhooks"): the order events of the service's
// outbox, delivered to a `ucp` endpoint as the protocol's order entity, signed per RFC 9421 with the service's UCP
// signing key. Only orders of the endpoint creator's own checkout sessions go out; others are skipped.
import type { SessionFulfillment } from '../../domain/checkout-session.ts';
import { canonicalJson, contentDigest, signRequest, type SigningKey } from './signing.ts';
import { orderOf, type OrderFacts } from './wire.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : null);
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** Why this delivery is not for the endpoint's platform, or null when it is. */
export function platformDenial(d: { entityType: string; sessionOwner: string | null; creatorScopes: string[] | null }, creatorKeyId: string | null): string | null {
  if (d.entityType !== 'order' || d.sessionOwner === null) return 'not an order placed from a checkout session';
  if (d.sessionOwner !== creatorKeyId) return 'an order of another platform';
  if (!(d.creatorScopes ?? []).includes('checkout:agent')) return 'the creator lacks checkout:agent';
  return null;
}

/** The order as the event carries it (orders.get's shape), read into the facts the protocol's order needs. */
function factsOf(object: Json): OrderFacts {
  const items = Array.isArray(object.items) ? object.items.filter(isObject) : [];
  return {
    id: str(object.id) ?? '', status: str(object.status) ?? '', currency: str(object.currency) ?? '', createdAt: str(object.createdAt) ?? '',
    acpSessionId: str(object.acpSessionId), subtotalDkk: num(object.subtotalDkk), discountDkk: num(object.discountDkk), shippingDkk: num(object.shippingDkk),
    totalDkk: num(object.totalDkk), vatOere: typeof object.vatOere === 'number' ? object.vatOere : null, carrier: str(object.carrier),
    trackingNumber: str(object.trackingNumber), trackingUrl: str(object.trackingUrl),
    items: items.map((i) => ({ id: str(i.id) ?? '', variantId: str(i.variantId), productName: str(i.productName) ?? '', unitPriceDkk: num(i.unitPriceDkk), quantity: num(i.quantity) })),
  };
}

/** The body and headers of one attempt: the order entity (canonical JSON), its digest and signature. */
export function orderWebhook(
  d: { eventId: string; data: string; sessionFulfillment: string | null; url: string },
  key: SigningKey,
  base: string,
  now: Date,
): { body: string; headers: Record<string, string> } {
  const data: unknown = JSON.parse(d.data);
  const object = isObject(data) && isObject(data.object) ? data.object : {};
  const fulfillment: unknown = d.sessionFulfillment === null ? null : JSON.parse(d.sessionFulfillment);
  const kept = isObject(fulfillment) ? (fulfillment as Partial<SessionFulfillment>) : null;
  const shippedAt = str(object.shippedAt);
  const facts = factsOf(object);
  const body = canonicalJson(orderOf(facts, kept && { address: kept.address ?? null, optionTitle: kept.optionTitle }, `${base}/ucp/orders/${encodeURIComponent(facts.id)}`, shippedAt ? { shippedAt } : null));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-digest': contentDigest(body),
    'ucp-agent': `profile="${base}/.well-known/ucp"`,
    'webhook-id': d.eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
  };
  return { body, headers: { ...headers, ...signRequest({ method: 'POST', url: d.url, headers }, key, now) } };
}
