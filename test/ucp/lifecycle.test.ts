// UCP checkout sessions over REST, end to end against PostgreSQL: create, update, totals, fulfillment, discounts,
// complete (paid, declined, fraud, escalated), cancel, orders, and who may see what. Every answer is validated against
// the protocol's JSON schemas.
import { describe, expect, it } from 'vitest';
import { sweepExpiredSessions } from '../../src/services/checkout-sessions.ts';
import {
  ADDRESS, checkout, createBody, expectValid, lines, ORDER_SCHEMA, paymentWith, ROSES, STANDARD_RATE, total, ucp, ucpError, startPlatform, useUcp } from './helpers.ts';

const ctx = useUcp();

const create = async (body: unknown = createBody()) => checkout(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', body), 201);

describe('create and read', () => {
  it('creates an incomplete checkout priced from the catalogue, with its links and a 6 h expiry', async () => {
    const c = await create();
    expect(c.status).toBe('incomplete');
    expect(c.id).toMatch(/^chk_/);
    expect(c.currency).toBe('USD');
    expect(c.line_items).toHaveLength(1);
    expect(c.line_items[0].item).toMatchObject({ id: ROSES, title: 'Bouquet of Red Roses', price: 3500 });
    expect(total(c, 'subtotal')).toBe(3500);
    expect(total(c, 'total')).toBe(3500);
    expect(total(c, 'fulfillment')).toBeUndefined();
    expect(c.links.map((l) => l.type)).toEqual(['terms_of_service', 'privacy_policy']);
    const hours = (Date.parse(c.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(5.9);
    expect(hours).toBeLessThanOrEqual(6);
    // What it lacks, as messages pointing into the checkout.
    expect(c.messages.map((m) => m.path)).toEqual(['$.fulfillment.methods[0].destinations']);
    const again = checkout(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`));
    expect(again.id).toBe(c.id);
  });

  it('refuses a create naming an item out of stock or unknown (400, nothing created)', async () => {
    const sessions = await ctx.t.db.checkoutSession.count();
    const short = ucpError(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', { line_items: lines([[ROSES, 1], ['gardenias', 1]]) }), 400, 'out_of_stock');
    expect(short.messages[0].content).toMatch(/^Insufficient stock: .*\(line_items\[1\]\)$/);
    const unknown = ucpError(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', { line_items: lines([['pink_wumpus', 1]]) }), 400, 'invalid_request');
    expect(unknown.messages[0].content).toBe('Item "pink_wumpus" not found (line_items[0]).');
    expect(await ctx.t.db.checkoutSession.count()).toBe(sessions);
  });

  it('refuses an update asking for more than the stock (400, the checkout unchanged); a line that runs out later is a message', async () => {
    const c = await create();
    const res = await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, { line_items: lines([[ROSES, 100_000]]) });
    expect(ucpError(res, 400, 'out_of_stock').messages[0].content).toMatch(/Insufficient stock/);
    const row = await ctx.t.db.checkoutSession.findUniqueOrThrow({ where: { id: c.id } });
    expect(row.lines).toEqual([expect.objectContaining({ variantId: ROSES, quantity: 1 })]);
    await ctx.t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { stock: 1 } });
    const later = await create({ line_items: lines([['pot_ceramic', 1]]) });
    await ctx.t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { stock: 0 } });
    const read = checkout(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${later.id}`));
    expect(read.messages.find((m) => m.path === '$.line_items[0]')?.code).toBe('out_of_stock');
    await ctx.t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { stock: 2000 } });
  });

  it('is ready for completion once buyer, address and option are given, with shipping in the totals', async () => {
    const c = await create(createBody([['pot_ceramic', 2]], true));
    expect(c.status).toBe('ready_for_complete');
    expect(c.messages).toEqual([]);
    expect(c.fulfillment.methods[0].groups[0].options.map((o) => o.id)).toEqual([STANDARD_RATE, 'exp-ship-us']);
    expect(total(c, 'subtotal')).toBe(3000);
    expect(total(c, 'fulfillment')).toBe(500);
    expect(total(c, 'total')).toBe(3500);
  });

  it('ships free from the shop’s free-shipping threshold, as priceOrder decides', async () => {
    const c = await create(createBody([['orchid_white', 3]], true));
    expect(total(c, 'subtotal')).toBe(13_500);
    expect(total(c, 'fulfillment')).toBe(0);
    expect(total(c, 'total')).toBe(13_500);
  });
});

describe('update', () => {
  it('replaces lines (keeping line ids), sets buyer and fulfillment step by step', async () => {
    const c = await create();
    const lineId = c.line_items[0].id;
    const withAddress = checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, {
      line_items: [{ id: lineId, item: { id: ROSES }, quantity: 2 }],
      buyer: { email: 'ada@example.com' },
      fulfillment: { methods: [{ type: 'shipping', destinations: [{ id: 'home', ...ADDRESS }], selected_destination_id: 'home' }] },
    }));
    expect(withAddress.line_items[0]).toMatchObject({ id: lineId, quantity: 2 });
    expect(withAddress.status).toBe('incomplete');
    expect(withAddress.messages.map((m) => m.path)).toEqual(['$.fulfillment.methods[0].groups[0].selected_option_id']);
    const ready = checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, {
      line_items: [{ id: lineId, item: { id: ROSES }, quantity: 2 }],
      fulfillment: { methods: [{ type: 'shipping', selected_destination_id: 'home', groups: [{ id: 'group_1', selected_option_id: STANDARD_RATE }] }] },
    }));
    expect(ready.status).toBe('ready_for_complete');
    // Roses ship free (the flower shop's promotion for them).
    expect(total(ready, 'total')).toBe(7000);
  });

  it('applies discount codes one after another and reports a code that cannot be used', async () => {
    const c = await create();
    const body = (codes: string[]) => ({ line_items: lines([[ROSES, 1]]), discounts: { codes } });
    const one = checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, body(['10off'])));
    expect(total(one, 'total')).toBe(3150);
    expect(total(one, 'discount')).toBe(-350);
    expect(one.discounts.applied).toEqual([{ code: '10OFF', title: '10OFF', amount: 350 }]);
    const two = checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, body(['10OFF', 'WELCOME20'])));
    expect(total(two, 'total')).toBe(2520);
    expect(two.discounts.applied.map((a) => a.code)).toEqual(['10OFF', 'WELCOME20']);
    const bad = checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, body(['10OFF', 'NOPE'])));
    expect(total(bad, 'total')).toBe(3150);
    expect(bad.messages).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'warning', code: 'discount_code_invalid', path: '$.discounts.codes[1]' })]));
    const fixed = checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, body(['FIXED500'])));
    expect(total(fixed, 'total')).toBe(3000);
  });
});

describe('complete', () => {
  it('places the order with channel ucp and the session recorded, taking stock; GET /ucp/orders answers it', async () => {
    const c = await create(createBody([['bouquet_tulips', 2]], true));
    const stockBefore = (await ctx.t.db.productVariant.findUniqueOrThrow({ where: { id: 'bouquet_tulips' } })).stock;
    const done = checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')));
    expect(done.status).toBe('completed');
    expect(done.order?.id).toBeTruthy();
    const order = await ctx.t.db.order.findUniqueOrThrow({ where: { id: done.order!.id }, include: { items: true } });
    expect(order).toMatchObject({ channel: 'ucp', acpSessionId: c.id, totalDkk: 6500n, email: 'buyer@example.com', aiAgentSource: 'test' });
    expect((await ctx.t.db.productVariant.findUniqueOrThrow({ where: { id: 'bouquet_tulips' } })).stock).toBe(stockBefore - 2n);
    const read = await ucp(ctx.t, ctx.p, 'GET', `/ucp/orders/${order.id}`);
    expect(read.statusCode, read.body).toBe(200);
    expectValid(read.json(), [ORDER_SCHEMA]);
    expect(read.json()).toMatchObject({ id: order.id, checkout_id: c.id, currency: 'USD' });
    // A completed checkout no longer changes.
    ucpError(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/cancel`), 422, 'checkout_session_closed');
    const audit = await ctx.t.db.auditEntry.findMany({ where: { entityId: c.id }, orderBy: { at: 'asc' } });
    expect(audit.map((a) => a.tool)).toEqual(['create_checkout', 'complete_checkout']);
  });

  it('counts each of several codes once, and a cancelled order gives each its use back', async () => {
    const uses = async () => (await ctx.t.db.discountCode.findMany({ where: { code: { in: ['10OFF', 'WELCOME20'] } }, orderBy: { code: 'asc' } })).map((d) => d.usageCount);
    const before = await uses();
    const c = await create({ ...createBody([['orchid_white', 1]], true), discounts: { codes: ['10OFF', 'WELCOME20'] } });
    expect(total(c, 'total')).toBe(3240 + 500);
    const done = checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')));
    const order = await ctx.t.db.order.findUniqueOrThrow({ where: { id: done.order!.id } });
    expect(order).toMatchObject({ discountCode: '10OFF,WELCOME20', discountDkk: 1260n, totalDkk: 3740n });
    expect(await uses()).toEqual(before.map((n) => n + 1n));
    const admin = await ctx.t.key(['orders:write']);
    const cancelled = await ctx.t.call('orders.update_status', { orderId: order.id, status: 'cancelled' }, admin);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await uses()).toEqual(before);
  });

  it('answers a declined payment 402 and a fraudulent one 403, changing nothing', async () => {
    const c = await create(createBody([[ROSES, 1]], true));
    ucpError(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('fail_token')), 402, 'payment_declined');
    ucpError(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('fraud_token')), 403, 'payment_rejected');
    expect(await ctx.t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
    expect(checkout(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`)).status).toBe('ready_for_complete');
  });

  it('sends the buyer to the storefront when no payment handler fits (requires_escalation + continue_url)', async () => {
    const c = await create(createBody([[ROSES, 1]], true));
    const escalated = checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('tok', 'com.example.wallet')));
    expect(escalated.status).toBe('requires_escalation');
    expect(escalated.continue_url).toMatch(new RegExp(`/checkout/ucp/${c.id}/[A-Za-z0-9_-]{43}$`));
    expect(escalated.messages).toEqual([expect.objectContaining({ type: 'error', code: 'payment_required', severity: 'requires_buyer_input' })]);
    expect(await ctx.t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
  });

  it('refuses to complete an incomplete checkout, and one whose line ran out, with 400', async () => {
    const c = await create();
    const incomplete = ucpError(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')), 400, 'checkout_session_incomplete');
    expect(incomplete.messages[0].content).toMatch(/^Fulfillment address and option must be selected\. fulfillment\.address: /);
    // Nor is an incomplete checkout sent to the storefront for payment.
    ucpError(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('tok', 'com.example.wallet')), 400, 'checkout_session_incomplete');
    const gone = await create(createBody([['pot_ceramic', 1]], true));
    await ctx.t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { stock: 0 } });
    ucpError(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${gone.id}/complete`, paymentWith('success_token')), 400, 'out_of_stock');
    await ctx.t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { stock: 2000 } });
    expect(await ctx.t.db.order.count({ where: { acpSessionId: { in: [c.id, gone.id] } } })).toBe(0);
  });
});

describe('cancel and expiry', () => {
  it('cancels an open checkout; a canceled one cannot change', async () => {
    const c = await create();
    expect(checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/cancel`)).status).toBe('canceled');
    ucpError(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, createBody()), 422, 'checkout_session_closed');
  });

  it('takes a cancel whose empty body is labelled application/json (as clients label every request)', async () => {
    const c = await create();
    const res = await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/cancel`, undefined, { headers: { 'content-type': 'application/json' } });
    expect(checkout(res).status).toBe('canceled');
  });

  it('shows an expired checkout as canceled and the sweep closes it, audited', async () => {
    const c = await create();
    await ctx.t.db.checkoutSession.update({ where: { id: c.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(checkout(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`)).status).toBe('canceled');
    ucpError(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')), 422, 'checkout_session_closed');
    const closed = await ctx.t.db.$transaction((tx) => sweepExpiredSessions(tx));
    expect(closed).toBeGreaterThanOrEqual(1);
    expect((await ctx.t.db.checkoutSession.findUniqueOrThrow({ where: { id: c.id } })).status).toBe('canceled');
    expect(await ctx.t.db.auditEntry.count({ where: { entityId: c.id, tool: 'checkout_sessions.sweep' } })).toBe(1);
  });
});

describe('who sees what', () => {
  it('hides another platform’s checkouts and orders (404), and needs checkout:agent', async () => {
    const c = await create();
    const other = await startPlatform(ctx.t);
    try {
      ucpError(await ucp(ctx.t, other, 'GET', `/ucp/checkout-sessions/${c.id}`), 404, 'not_found');
      ucpError(await ucp(ctx.t, other, 'PUT', `/ucp/checkout-sessions/${c.id}`, createBody()), 404, 'not_found');
      const admin = await ctx.t.key(['orders:read', 'cart:write']);
      ucpError(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`, undefined, { key: admin }), 403, 'insufficient_scope');
      ucpError(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`, undefined, { key: 'nope' }), 401, 'unauthorized');
    } finally {
      await other.close();
    }
  });

  it('accepts the key as X-API-Key', async () => {
    const res = await ctx.t.app.inject({
      method: 'POST', url: '/ucp/checkout-sessions',
      headers: { 'x-api-key': ctx.p.key, 'ucp-agent': `profile="${ctx.p.profileUrl}"`, 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' },
      payload: JSON.stringify(createBody()),
    });
    checkout(res, 201);
  });
});

describe('validation and negotiation', () => {
  it('answers every bad input with the protocol’s error response', async () => {
    ucpError(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', { line_items: [] }), 400, 'invalid_request');
    ucpError(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', { line_items: [{ item: { id: ROSES }, quantity: 0 }] }), 400);
    ucpError(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', { line_items: [{ item: {}, quantity: 1 }] }), 400);
    ucpError(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody(), { idempotencyKey: null }), 400, 'invalid_request');
    ucpError(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody(), { headers: { 'ucp-agent': 'nonsense' } }), 400, 'invalid_request');
    ucpError(await ucp(ctx.t, ctx.p, 'GET', '/ucp/checkout-sessions/chk_missing'), 404, 'not_found');
    const raw = await ctx.t.app.inject({
      method: 'POST', url: '/ucp/checkout-sessions', payload: '{"line_items":',
      headers: { authorization: `Bearer ${ctx.p.key}`, 'ucp-agent': `profile="${ctx.p.profileUrl}"`, 'idempotency-key': 'k-raw', 'content-type': 'application/json' },
    });
    ucpError(raw, 400, 'invalid_json');
  });

  it('refuses a platform whose profile declares a newer protocol version', async () => {
    const future = await startPlatform(ctx.t, { version: '2099-01-01' });
    try {
      ucpError(await ucp(ctx.t, future, 'POST', '/ucp/checkout-sessions', createBody()), 422, 'unsupported_version');
    } finally {
      await future.close();
    }
  });
});

describe('idempotency', () => {
  it('replays the same request under the same key, refuses another body (409), and needs the key', async () => {
    const first = await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody(), { idempotencyKey: 'same-key-1' });
    const c = checkout(first, 201);
    const again = await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody(), { idempotencyKey: 'same-key-1' });
    expect(checkout(again, 201).id).toBe(c.id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await ctx.t.db.checkoutSession.count({ where: { id: c.id } })).toBe(1);
    ucpError(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody([[ROSES, 2]]), { idempotencyKey: 'same-key-1' }), 409, 'idempotency_conflict');
  });

  it('completes once under a retried key', async () => {
    const c = await create(createBody([['pot_ceramic', 1]], true));
    const url = `/ucp/checkout-sessions/${c.id}/complete`;
    const [a, b] = [await ucp(ctx.t, ctx.p, 'POST', url, paymentWith('success_token'), { idempotencyKey: 'complete-1' }), await ucp(ctx.t, ctx.p, 'POST', url, paymentWith('success_token'), { idempotencyKey: 'complete-1' })];
    expect(checkout(a).order?.id).toBe(checkout(b).order?.id);
    expect(await ctx.t.db.order.count({ where: { acpSessionId: c.id } })).toBe(1);
  });
});

// Last in this file: it removes the shop's settings row.
describe('a shop that never saved its settings', () => {
  it('creates and completes a checkout, the settings made with their defaults on the way', async () => {
    await ctx.t.db.shopSettings.deleteMany({});
    const c = await create(createBody([['pot_ceramic', 1]], true));
    expect(c.status).toBe('ready_for_complete');
    expect(await ctx.t.db.shopSettings.count()).toBe(1);
    await ctx.t.db.shopSettings.deleteMany({});
    const done = checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')));
    expect(done.status).toBe('completed');
    expect(await ctx.t.db.order.count({ where: { acpSessionId: c.id } })).toBe(1);
  });
});
