// PUT /ucp/orders/{id} against PostgreSQL: a platform key that also holds orders:write records fulfillment events
// and adjustments on the orders of its own checkouts (a new shipped event ships the order as orders.update_status
// does); without orders:write it is refused, another platform's order is missing, and bodies the order schema
// refuses are 422 with nothing recorded. Every order answer is validated against the protocol's order schema.
import { describe, expect, it } from 'vitest';
import { checkout, createBody, expectValid, ORDER_SCHEMA, paymentWith, ucp, ucpError, useUcp } from './helpers.ts';

const ctx = useUcp();

type UcpOrder = {
  id: string; line_items: Array<{ id: string; quantity: { total: number } }>;
  fulfillment: { events?: Array<{ id: string; type: string; tracking_number?: string }> };
  adjustments?: Array<{ id: string; status: string; amount?: number }>;
  messages?: Array<{ type: string; code: string }>;
};

/** A key of the platform that may also write orders, and an order placed from one of its checkouts. */
async function placed(scopes: Array<'checkout:agent' | 'orders:write'> = ['checkout:agent', 'orders:write']) {
  const key = await ctx.t.key(scopes);
  const c = checkout(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody([['pot_ceramic', 1]], true), { key }), 201);
  const done = checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token'), { key }));
  const read = await ucp(ctx.t, ctx.p, 'GET', `/ucp/orders/${done.order!.id}`, undefined, { key });
  expect(read.statusCode, read.body).toBe(200);
  return { key, sessionId: c.id, order: read.json() as UcpOrder };
}

const event = (order: UcpOrder, id: string, extra: Record<string, unknown> = {}) => ({
  id, type: 'shipped', occurred_at: new Date().toISOString(), line_items: order.line_items.map((l) => ({ id: l.id, quantity: l.quantity.total })), ...extra,
});

async function put(key: string, order: UcpOrder, body: unknown) {
  return ucp(ctx.t, ctx.p, 'PUT', `/ucp/orders/${order.id}`, body, { key });
}

function orderOk(res: { statusCode: number; body: string; json: () => unknown }): UcpOrder {
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expectValid(body, [ORDER_SCHEMA]);
  return body as UcpOrder;
}

describe('PUT /ucp/orders/{id}', () => {
  it('records a shipped event; an order awaiting payment stays so (with a warning), a paid one ships with the tracking', async () => {
    const { key, sessionId, order } = await placed();
    expect((await ctx.t.db.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe('pending_payment');
    const first = orderOk(await put(key, order, { ...order, fulfillment: { ...order.fulfillment, events: [event(order, 'evt_1', { tracking_number: 'T1' })] } }));
    expect(first.fulfillment.events).toEqual([expect.objectContaining({ id: 'evt_1', tracking_number: 'T1' })]);
    expect(first.messages).toEqual([expect.objectContaining({ type: 'warning', code: 'status_unchanged' })]);
    expect((await ctx.t.db.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe('pending_payment');

    const admin = await ctx.t.key(['orders:write']);
    expect((await ctx.t.call('orders.update_status', { orderId: order.id, status: 'paid' }, admin)).statusCode).toBe(200);
    // The first event is kept as it was (append-only); only the new one ships the order.
    const body = { fulfillment: { events: [event(order, 'evt_1', { tracking_number: 'CHANGED' }), event(order, 'evt_2', { tracking_number: 'TRACK123', tracking_url: 'https://track.example.com/123', carrier: 'FedEx' })] } };
    const second = orderOk(await put(key, order, body));
    expect(second.fulfillment.events?.map((e) => [e.id, e.tracking_number])).toEqual([['evt_1', 'T1'], ['evt_2', 'TRACK123']]);
    expect(second.messages).toBeUndefined();
    const row = await ctx.t.db.order.findUniqueOrThrow({ where: { id: order.id } });
    expect(row).toMatchObject({ status: 'shipped', trackingNumber: 'TRACK123', trackingUrl: 'https://track.example.com/123', carrier: 'FedEx' });
    // GET shows the recorded events (not the shop's own derived one besides them).
    const read = orderOk(await ucp(ctx.t, ctx.p, 'GET', `/ucp/orders/${order.id}`, undefined, { key }));
    expect(read.fulfillment.events?.map((e) => e.id)).toEqual(['evt_1', 'evt_2']);
    const audit = await ctx.t.db.auditEntry.findMany({ where: { tool: 'update_order', entityId: { in: [order.id, sessionId] } }, orderBy: { at: 'asc' } });
    expect(audit.map((a) => a.entityType).sort()).toEqual(['checkout_session', 'checkout_session', 'order']);
  });

  it('records a shipped event on an order that has shipped and moved on (partly refunded) without a warning or a move', async () => {
    const { key, order } = await placed();
    const admin = await ctx.t.key(['orders:write']);
    for (const status of ['paid', 'shipped'] as const) expect((await ctx.t.call('orders.update_status', { orderId: order.id, status }, admin)).statusCode).toBe(200);
    // What a partial refund leaves (orders.refund through Stripe moves it when Stripe reports the refund).
    await ctx.t.db.order.update({ where: { id: order.id }, data: { status: 'partial_refund', refundedDkk: 100 } });
    const answer = orderOk(await put(key, order, { fulfillment: { events: [event(order, 'evt_late')] } }));
    expect(answer.fulfillment.events?.map((e) => e.id)).toContain('evt_late');
    expect(answer.messages).toBeUndefined();
    expect((await ctx.t.db.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe('partial_refund');
  });

  it('records adjustments, keeping fields the schema does not name; one of a known id is updated in place', async () => {
    const { key, order } = await placed();
    const adjustment = { id: 'adj_1', type: 'refund', occurred_at: new Date().toISOString(), status: 'pending', amount: 500, description: 'Customer refund request' };
    const first = orderOk(await put(key, order, { ...order, adjustments: [adjustment] }));
    expect(first.adjustments).toEqual([adjustment]);
    const second = orderOk(await put(key, order, { adjustments: [{ ...adjustment, status: 'completed' }, { ...adjustment, id: 'adj_2' }] }));
    expect(second.adjustments?.map((a) => [a.id, a.status, a.amount])).toEqual([['adj_1', 'completed', 500], ['adj_2', 'pending', 500]]);
    const session = await ctx.t.db.checkoutSession.findUniqueOrThrow({ where: { orderId: order.id } });
    expect(session.orderRecord).toMatchObject({ events: [], adjustments: [{ id: 'adj_1', status: 'completed' }, { id: 'adj_2' }] });
  });

  it('answers 422 to a body the order schema refuses, recording nothing', async () => {
    const { key, order } = await placed();
    const adjustment = { id: 'adj_x', type: 'refund', occurred_at: new Date().toISOString(), status: 'INVALID_STATUS', amount: 500 };
    ucpError(await put(key, order, { ...order, adjustments: [adjustment] }), 422, 'invalid_request');
    ucpError(await put(key, order, { ...order, adjustments: { id: 'adj_1', amount: 100 } }), 422, 'invalid_request');
    const stranger = ucpError(await put(key, order, { fulfillment: { events: [{ ...event(order, 'evt_x'), line_items: [{ id: 'nope', quantity: 1 }] }] } }), 422, 'invalid_request');
    expect(stranger.messages[0].content).toContain('"nope"');
    expect((await ctx.t.db.checkoutSession.findUniqueOrThrow({ where: { orderId: order.id } })).orderRecord).toBeNull();
  });

  it('refuses a key without orders:write (403) and hides another platform’s order (404)', async () => {
    const { key, order } = await placed(['checkout:agent']);
    ucpError(await put(key, order, { adjustments: [] }), 403, 'insufficient_scope');
    const other = await ctx.t.key(['checkout:agent', 'orders:write']);
    ucpError(await put(other, order, { adjustments: [] }), 404, 'not_found');
    expect((await ctx.t.db.checkoutSession.findUniqueOrThrow({ where: { orderId: order.id } })).orderRecord).toBeNull();
  });
});
