// An order an agent's SharedPaymentToken paid before it existed is placed and paid in the completion's one
// transaction (docs/agentic-checkout.md, ACP "Payment"): the row is paid from its first commit, and subscribers see
// what every payment shows them, the order created and then moved to paid, as two writes of the order (sequences
// n and n + 1) with two audit entries, and the buyer's confirmation written once. A replay changes nothing.
import { expect, it } from 'vitest';
import { acp, createBody, payWith, session, useAcp } from './helpers.ts';

// Nothing listens there: the e-mail stays in the outbox, which is what is checked.
const w = useAcp({ env: { SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'shop@example.com' } });

it('places the order paid, with order.created then order.status_changed and one confirmation', async () => {
  const s = session(await acp(w, 'POST', '/acp/checkout_sessions', createBody([['item_123', 1]], true)), 201);
  const completeKey = 'complete-paid-1';
  const done = session(await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_ok_paid'), { idempotencyKey: completeKey }));
  expect(done.order).toMatchObject({ status: 'confirmed' });
  const orderId = done.order!.id;

  const order = await w.t.db.order.findUniqueOrThrow({ where: { id: orderId } });
  expect(order.status).toBe('paid');
  expect(order.paidAt?.toISOString()).toBe(order.createdAt.toISOString());

  const events = await w.t.db.webhookEvent.findMany({ where: { entityType: 'order', entityId: orderId }, orderBy: { sequence: 'asc' } });
  expect(events.map((e) => [e.type, e.sequence])).toEqual([['order.created', 1n], ['order.status_changed', 2n]]);
  const moved = events[1].data as { object: { status: string }; changedFields: string[]; previousValues: { status: string } };
  expect(moved.object.status).toBe('paid');
  expect(moved.previousValues.status).toBe('pending_payment');
  expect(moved.changedFields.sort()).toEqual(['paidAt', 'status']);

  const audit = await w.t.db.auditEntry.findMany({ where: { entityType: 'order', entityId: orderId }, orderBy: [{ at: 'asc' }, { id: 'asc' }] });
  expect(audit.map((a) => [a.tool, (a.before as { status?: string } | null)?.status ?? null, (a.after as { status: string }).status])).toEqual([
    ['acp.complete_checkout_session', null, 'pending_payment'],
    ['acp.complete_checkout_session', 'pending_payment', 'paid'],
  ]);
  expect(await w.t.db.emailOutbox.count({ where: { orderId } })).toBe(1);
  expect(await w.t.db.emailOutbox.count({ where: { orderId, kind: 'order_confirmation' } })).toBe(1);

  // The replay answers the same and writes nothing more.
  const replay = await acp(w, 'POST', `/acp/checkout_sessions/${s.id}/complete`, payWith('spt_test_ok_paid'), { idempotencyKey: completeKey });
  expect(session(replay).order).toMatchObject({ id: orderId, status: 'confirmed' });
  expect(await w.t.db.webhookEvent.count({ where: { entityType: 'order', entityId: orderId } })).toBe(2);
  expect(await w.t.db.auditEntry.count({ where: { entityType: 'order', entityId: orderId } })).toBe(2);
  expect(await w.t.db.emailOutbox.count({ where: { orderId } })).toBe(1);

  // The order's next write takes the next number.
  const shipped = await w.t.call('orders.update_status', { orderId, status: 'shipped' }, await w.t.key(['orders:write']));
  expect(shipped.statusCode, shipped.body).toBe(200);
  const last = await w.t.db.webhookEvent.findFirstOrThrow({ where: { entityType: 'order', entityId: orderId }, orderBy: { sequence: 'desc' } });
  expect([last.type, last.sequence]).toEqual(['order.status_changed', 3n]);
});
