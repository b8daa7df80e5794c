import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORDER_STATUSES, legalTargets, type OrderStatus } from '../../src/domain/order-transitions.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { concurrently, expectScopeEnforced, lastAudit, okResult } from '../helpers/calls.ts';
import { makeDiscount, makeOrder, makeProduct } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['orders:read', 'orders:write']);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'OrderItem', 'Order', 'AuditEntry');
});

const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n, 12));
const list = (body: Record<string, unknown> = {}) => t.call('orders.list', body, key);
const setStatus = (orderId: string, status: string, body: Record<string, unknown> = {}) => t.call('orders.update_status', { orderId, status, ...body }, key);

describe('POST /api/v1/tools/orders.list', () => {
  it('returns list items with exactly the list-item fields, newest first', async () => {
    const product = await makeProduct(t.db);
    const older = await makeOrder(t.db, { createdAt: day(1), items: [{ productId: product.id, quantity: 2, unitPriceDkk: 1500, productName: 'Round' }] });
    const newer = await makeOrder(t.db, {
      createdAt: day(2), discountCode: 'SAVE',
      items: [{ productId: product.id, quantity: 1, unitPriceDkk: 700, productName: 'A' }, { productId: product.id, quantity: 3, unitPriceDkk: 100, productName: 'B' }],
    });
    const result = okResult<Record<string, unknown>[]>(await list());
    expect(result.map((o) => o.id)).toEqual([newer.id, older.id]);
    expect(Object.keys(result[0]).sort()).toEqual([
      'createdAt', 'discountCode', 'discountDkk', 'email', 'id', 'itemCount', 'items', 'shippingDkk', 'shippingName', 'status', 'subtotalDkk', 'totalDkk',
    ]);
    expect(result[0]).toEqual({
      id: newer.id, email: newer.email, shippingName: 'Ada Buyer', status: 'pending_payment',
      subtotalDkk: 1000, discountDkk: 0, shippingDkk: 0, totalDkk: 1000, discountCode: 'SAVE',
      itemCount: 4,
      items: [{ productName: 'A', quantity: 1, unitPriceDkk: 700 }, { productName: 'B', quantity: 3, unitPriceDkk: 100 }],
      createdAt: day(2).toISOString(),
    });
    expect(result[1]).toMatchObject({ itemCount: 2, discountCode: null, items: [{ productName: 'Round', quantity: 2, unitPriceDkk: 1500 }] });
  });

  it('returns an order without items with itemCount 0 and items []', async () => {
    await makeOrder(t.db);
    expect(okResult<Record<string, unknown>[]>(await list())[0]).toMatchObject({ itemCount: 0, items: [] });
  });

  it('returns 20 orders by default and at most limit', async () => {
    for (let i = 0; i < 25; i++) await makeOrder(t.db, { createdAt: day(i) });
    expect(okResult<unknown[]>(await list())).toHaveLength(20);
    expect(okResult<unknown[]>(await list({ limit: 1 }))).toHaveLength(1);
    expect(okResult<unknown[]>(await list({ limit: 100 }))).toHaveLength(25);
  });

  it('filters by status', async () => {
    const paid = await makeOrder(t.db, { status: 'paid' });
    await makeOrder(t.db, { status: 'pending_payment' });
    expect(okResult<{ id: string }[]>(await list({ status: 'paid' })).map((o) => o.id)).toEqual([paid.id]);
    expect(okResult<unknown[]>(await list({ status: 'refunded' }))).toEqual([]);
  });

  it('filters by email case-insensitively and literally (no LIKE wildcards)', async () => {
    const a = await makeOrder(t.db, { email: 'Ann_Lee@Example.com', createdAt: day(1) });
    const b = await makeOrder(t.db, { email: 'ann_lee@example.com', createdAt: day(2) });
    await makeOrder(t.db, { email: 'annxlee@example.com' });
    await makeOrder(t.db, { email: 'someone@example.com' });
    expect(okResult<{ id: string }[]>(await list({ email: 'ANN_LEE@example.COM' })).map((o) => o.id)).toEqual([b.id, a.id]);
  });

  it('filters by fromDate and toDate, both inclusive, and with offsets', async () => {
    const orders = [];
    for (let i = 0; i < 5; i++) orders.push(await makeOrder(t.db, { createdAt: day(i) }));
    const ids = (r: { id: string }[]) => r.map((o) => o.id);
    expect(ids(okResult(await list({ fromDate: day(1).toISOString(), toDate: day(3).toISOString() })))).toEqual([orders[3].id, orders[2].id, orders[1].id]);
    expect(ids(okResult(await list({ fromDate: day(4).toISOString() })))).toEqual([orders[4].id]);
    expect(ids(okResult(await list({ toDate: day(0).toISOString() })))).toEqual([orders[0].id]);
    // 2026-01-03T14:00+02:00 is 12:00Z: day(2) exactly.
    expect(ids(okResult(await list({ fromDate: '2026-01-03T14:00:00+02:00', toDate: '2026-01-03T14:00:00+02:00' })))).toEqual([orders[2].id]);
  });

  it('combines filters with AND', async () => {
    const hit = await makeOrder(t.db, { status: 'paid', email: 'x@example.com', createdAt: day(5) });
    await makeOrder(t.db, { status: 'paid', email: 'y@example.com', createdAt: day(5) });
    await makeOrder(t.db, { status: 'shipped', email: 'x@example.com', createdAt: day(5) });
    await makeOrder(t.db, { status: 'paid', email: 'x@example.com', createdAt: day(9) });
    const r = okResult<{ id: string }[]>(await list({ status: 'paid', email: 'x@example.com', fromDate: day(4).toISOString(), toDate: day(6).toISOString() }));
    expect(r.map((o) => o.id)).toEqual([hit.id]);
  });

  it.each([
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
    ['limit "5"', { limit: '5' }],
    ['limit 1.5', { limit: 1.5 }],
    ['limit 2^53', { limit: 9007199254740992 }],
    ['a bad email', { email: 'not-an-email' }],
    ['an unknown status', { status: 'lost' }],
    ['a date without time', { fromDate: '2026-01-01' }],
    ['a non-date', { toDate: 'yesterday' }],
    ['an impossible date', { fromDate: '2026-13-01T00:00:00Z' }],
    ['an unknown field', { statuses: ['paid'] }],
  ])('refuses %s with 400', async (_name, body) => {
    expectProblem(await list(body), 400, 'invalid_request');
  });

  it('refuses fromDate after toDate with 422 invalid_date_range (a rule between the fields)', async () => {
    expectProblem(await list({ fromDate: day(2).toISOString(), toDate: day(1).toISOString() }), 422, 'invalid_date_range');
  });

  it('needs orders:read', async () => {
    await expectScopeEnforced(t, 'orders.list', 'orders:read');
  });
});

const FULL_ORDER_FIELDS = [
  'acpSessionId', 'aiAgentSource', 'billingAddress', 'billingCity', 'billingCountry', 'billingName', 'billingZip', 'carrier', 'channel',
  'confirmationEmailSentAt', 'createdAt', 'currency', 'discountCode', 'discountDkk', 'disputedAt', 'email', 'estDeliveryFrom', 'estDeliveryTo',
  'fxRate', 'id', 'invoiceId', 'invoicePdfUrl', 'invoiceProvider', 'isAiGenerated', 'items', 'paidAt', 'paymentMethod', 'phoneNumber',
  'refundedAt', 'refundedDkk', 'shippingAddress', 'shippingCity', 'shippingDkk', 'shippingName', 'shippingZip', 'status', 'stripeCheckoutSessionId',
  'stripePaymentIntentId', 'subtotalDkk', 'totalDkk', 'trackingNumber', 'trackingUrl', 'userId', 'vatOere',
];

describe('POST /api/v1/tools/orders.get', () => {
  it('returns every field of the full order, null when unset', async () => {
    const product = await makeProduct(t.db);
    const order = await makeOrder(t.db, { createdAt: day(3), items: [{ productId: product.id, quantity: 2, unitPriceDkk: 4500, productName: 'Aviator' }] });
    const result = okResult<Record<string, unknown>>(await t.call('orders.get', { orderId: order.id }, key));
    expect(Object.keys(result).sort()).toEqual(FULL_ORDER_FIELDS);
    expect(result).toMatchObject({
      id: order.id, userId: null, status: 'pending_payment', billingName: null, vatOere: null, paidAt: null, estDeliveryFrom: null,
      subtotalDkk: 9000, totalDkk: 9000, refundedDkk: 0, stripeCheckoutSessionId: null, currency: 'DKK', fxRate: 1, channel: 'web', isAiGenerated: false, createdAt: day(3).toISOString(),
    });
    expect(result.items).toEqual([{
      id: order.items[0].id, orderId: order.id, productId: product.id, productName: 'Aviator', unitPriceDkk: 4500, quantity: 2,
      variantId: null, variantSku: null, variantAttributes: null,
    }]);
  });

  it('answers 404 for an unknown order and 400 for an empty id', async () => {
    expectProblem(await t.call('orders.get', { orderId: 'nope' }, key), 404, 'not_found');
    expectProblem(await t.call('orders.get', { orderId: '' }, key), 400, 'invalid_request');
    expectProblem(await t.call('orders.get', {}, key), 400, 'invalid_request');
  });

  it('needs orders:read', async () => {
    await expectScopeEnforced(t, 'orders.get', 'orders:read', { orderId: 'x' });
  });
});

const LEGAL = ORDER_STATUSES.flatMap((from) => legalTargets(from).map((to) => [from, to] as [OrderStatus, OrderStatus]));
const ILLEGAL_SAMPLE: [OrderStatus, OrderStatus][] = [
  ['paid', 'pending'], ['paid', 'pending_payment'], ['pending_payment', 'shipped'], ['pending_payment', 'refunded'],
  ['shipped', 'cancelled'], ['shipped', 'processing'], ['delivered', 'shipped'], ['completed', 'cancelled'],
  ['cancelled', 'paid'], ['cancelled', 'pending_payment'], ['refunded', 'paid'], ['disputed', 'partial_refund'],
  ['partial_refund', 'partial_refund'], ['flagged_review', 'shipped'],
  ...ORDER_STATUSES.map((s) => [s, s] as [OrderStatus, OrderStatus]),
];

describe('POST /api/v1/tools/orders.update_status', () => {
  it.each(LEGAL)('moves %s → %s', async (from, to) => {
    const order = await makeOrder(t.db, { status: from });
    expect(okResult(await setStatus(order.id, to))).toEqual({ id: order.id, status: to });
    expect((await t.db.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe(to);
  });

  it.each(ILLEGAL_SAMPLE)('refuses %s → %s with 422 illegal_transition naming the legal targets', async (from, to) => {
    const order = await makeOrder(t.db, { status: from });
    const body = expectProblem(await setStatus(order.id, to), 422, 'illegal_transition');
    for (const target of legalTargets(from)) expect(body.detail).toContain(target);
    expect((await t.db.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe(from);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('POST /api/v1/tools/orders.update_status refuses paid → pending', async () => {
    const order = await makeOrder(t.db, { status: 'paid' });
    const body = expectProblem(await setStatus(order.id, 'pending'), 422, 'illegal_transition');
    expect(body.detail).toMatch(/from "paid" to "pending".*processing, shipped, flagged_review, cancelled, refunded, partial_refund, disputed/);
  });

  it('sets paidAt on paid, and keeps the first paidAt when the order is paid again after a review', async () => {
    const order = await makeOrder(t.db, { status: 'pending_payment' });
    const before = Date.now();
    okResult(await setStatus(order.id, 'paid'));
    const paidAt = (await t.db.order.findUniqueOrThrow({ where: { id: order.id } })).paidAt!;
    expect(paidAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    okResult(await setStatus(order.id, 'flagged_review'));
    okResult(await setStatus(order.id, 'paid'));
    expect((await t.db.order.findUniqueOrThrow({ where: { id: order.id } })).paidAt).toEqual(paidAt);
  });

  it('sets shippedAt, refundedAt (partial and full) and disputedAt', async () => {
    const order = await makeOrder(t.db, { status: 'paid' });
    const row = () => t.db.order.findUniqueOrThrow({ where: { id: order.id } });
    okResult(await setStatus(order.id, 'shipped'));
    expect((await row()).shippedAt).toBeInstanceOf(Date);
    expect((await row()).refundedAt).toBeNull();
    okResult(await setStatus(order.id, 'disputed'));
    expect((await row()).disputedAt).toBeInstanceOf(Date);
    const other = await makeOrder(t.db, { status: 'delivered' });
    okResult(await setStatus(other.id, 'partial_refund'));
    expect((await t.db.order.findUniqueOrThrow({ where: { id: other.id } })).refundedAt).toBeInstanceOf(Date);
    const third = await makeOrder(t.db, { status: 'paid' });
    okResult(await setStatus(third.id, 'refunded'));
    const refunded = await t.db.order.findUniqueOrThrow({ where: { id: third.id } });
    expect(refunded.refundedAt).toBeInstanceOf(Date);
    expect(refunded.disputedAt).toBeNull();
  });

  it('cancelling an order that never shipped returns its stock and its discount use', async () => {
    const a = await makeProduct(t.db, { stock: 1 });
    const b = await makeProduct(t.db, { stock: 0 });
    const code = await makeDiscount(t.db, { usageLimit: 3, usageCount: 3 });
    const order = await makeOrder(t.db, {
      status: 'paid', discountCode: code.code,
      items: [{ productId: a.id, quantity: 2 }, { productId: b.id, quantity: 1 }, { productId: a.id, quantity: 1 }],
    });
    okResult(await setStatus(order.id, 'cancelled'));
    expect((await t.db.product.findUniqueOrThrow({ where: { id: a.id } })).stock).toBe(4n);
    expect((await t.db.product.findUniqueOrThrow({ where: { id: b.id } })).stock).toBe(1n);
    expect((await t.db.discountCode.findUniqueOrThrow({ where: { id: code.id } })).usageCount).toBe(2n);
    const entry = await lastAudit(t, 'orders.update_status', order.id);
    expect(entry.meta).toEqual({
      stockReturned: [{ productId: a.id, quantity: 3 }, { productId: b.id, quantity: 1 }].sort((x, y) => (x.productId < y.productId ? -1 : 1)),
      discountUseReturned: code.code,
    });
  });

  it('does not return stock for an order that already shipped', async () => {
    const product = await makeProduct(t.db, { stock: 0 });
    const order = await makeOrder(t.db, { status: 'processing', shippedAt: day(1), items: [{ productId: product.id, quantity: 2 }] });
    okResult(await setStatus(order.id, 'cancelled'));
    expect((await t.db.product.findUniqueOrThrow({ where: { id: product.id } })).stock).toBe(0n);
    expect((await lastAudit(t, 'orders.update_status', order.id)).meta).toBeNull();
  });

  it('returns stock once when the same order is cancelled 10 times at once', async () => {
    const product = await makeProduct(t.db, { stock: 0 });
    const code = await makeDiscount(t.db, { usageLimit: 1, usageCount: 1 });
    const order = await makeOrder(t.db, { status: 'paid', discountCode: code.code, items: [{ productId: product.id, quantity: 2 }] });
    const responses = await concurrently(10, () => setStatus(order.id, 'cancelled'));
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of responses.filter((x) => x.statusCode !== 200)) expectProblem(r, 422, 'illegal_transition');
    expect((await t.db.product.findUniqueOrThrow({ where: { id: product.id } })).stock).toBe(2n);
    expect((await t.db.discountCode.findUniqueOrThrow({ where: { id: code.id } })).usageCount).toBe(0n);
  });

  it('writes the state before the change to the audit log', async () => {
    const order = await makeOrder(t.db, { status: 'pending_payment' });
    okResult(await setStatus(order.id, 'paid'));
    const entry = await lastAudit(t, 'orders.update_status', order.id);
    expect(entry).toMatchObject({ entityType: 'order', entityId: order.id });
    expect(entry.before).toMatchObject({ id: order.id, status: 'pending_payment', paidAt: null });
    expect(entry.after).toMatchObject({ id: order.id, status: 'paid' });
    expect((entry.after as { paidAt: string }).paidAt).toMatch(/Z$/);
  });

  it('changes nothing on a dry run', async () => {
    const product = await makeProduct(t.db, { stock: 0 });
    const order = await makeOrder(t.db, { status: 'paid', items: [{ productId: product.id, quantity: 1 }] });
    const res = await setStatus(order.id, 'cancelled', { dryRun: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, dryRun: true, result: { id: order.id, status: 'cancelled' } });
    expect((await t.db.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe('paid');
    expect((await t.db.product.findUniqueOrThrow({ where: { id: product.id } })).stock).toBe(0n);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('publishes the transition table in its description', async () => {
    const { TOOLS } = await import('../../src/tools/index.ts');
    const tool = TOOLS.find((x) => x.name === 'orders.update_status')!;
    expect(tool.description).toContain('- paid → processing, shipped, flagged_review, cancelled, refunded, partial_refund, disputed');
    expect(tool.description).toContain('- refunded → none (terminal)');
    expect(tool.annotations.destructiveHint).toBe(true);
  });

  it('answers 404 for an unknown order and 400 for an unknown status', async () => {
    expectProblem(await setStatus('missing', 'paid'), 404, 'not_found');
    const order = await makeOrder(t.db);
    expectProblem(await setStatus(order.id, 'lost'), 400, 'invalid_request');
  });

  it('needs orders:write', async () => {
    await expectScopeEnforced(t, 'orders.update_status', 'orders:write', { orderId: 'x', status: 'paid' });
  });
});
