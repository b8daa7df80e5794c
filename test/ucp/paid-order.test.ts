// A UCP completion's order and the buyer's confirmation, by payment handler, with SMTP set up (docs/email.md,
// docs/agentic-checkout.md "Payment"): the Stripe handler's payment was taken before the order, so the order is placed
// paid in the completion's transaction — order.created (n) then order.status_changed to paid (n + 1), and one
// confirmation; the test handler's order awaits its payment as a manual one and gets no e-mail.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-server.ts';
import { stripeEnv } from '../payments/setup.ts';
import type { TestApp } from '../helpers/app.ts';
import { checkout, createBody, paymentWith, ROSES, startPlatform, ucp, ucpApp, type Platform } from './helpers.ts';

let t: TestApp;
let p: Platform;
let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await startFakeStripe();
  // Nothing listens there: the e-mail stays in the outbox, which is what is checked.
  t = await ucpApp({ ...stripeEnv(stripe), SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'shop@example.com' });
  p = await startPlatform(t);
});
afterAll(async () => {
  await p?.close();
  await t?.close();
  await stripe?.close();
});

const spt = { payment: { instruments: [{ id: 'instr_1', handler_id: 'stripe', type: 'card', selected: true, credential: { type: 'spt', token: 'spt_ok_paid' } }] } };

async function completed(payment: unknown): Promise<string> {
  const c = checkout(await ucp(t, p, 'POST', '/ucp/checkout-sessions', createBody([[ROSES, 1]], true)), 201);
  const done = checkout(await ucp(t, p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, payment, { idempotencyKey: randomUUID() }));
  expect(done.status).toBe('completed');
  return done.order!.id;
}

const eventsOf = async (orderId: string) =>
  (await t.db.webhookEvent.findMany({ where: { entityType: 'order', entityId: orderId }, orderBy: { sequence: 'asc' } })).map((e) => [e.type, e.sequence]);

it('places a Stripe-paid order paid, with created then paid as two writes and one confirmation', async () => {
  const orderId = await completed(spt);
  const order = await t.db.order.findUniqueOrThrow({ where: { id: orderId } });
  expect(order).toMatchObject({ status: 'paid', channel: 'ucp' });
  expect(order.paidAt?.toISOString()).toBe(order.createdAt.toISOString());
  expect(await eventsOf(orderId)).toEqual([['order.created', 1n], ['order.status_changed', 2n]]);
  const audit = await t.db.auditEntry.findMany({ where: { entityType: 'order', entityId: orderId }, orderBy: [{ at: 'asc' }, { id: 'asc' }] });
  expect(audit.map((a) => (a.after as { status: string }).status)).toEqual(['pending_payment', 'paid']);
  expect(await t.db.emailOutbox.findMany({ where: { orderId }, select: { kind: true } })).toEqual([{ kind: 'order_confirmation' }]);
});

it('leaves the test handler’s order awaiting its payment, with one event and no e-mail', async () => {
  const orderId = await completed(paymentWith('success_token'));
  expect((await t.db.order.findUniqueOrThrow({ where: { id: orderId } })).status).toBe('pending_payment');
  expect(await eventsOf(orderId)).toEqual([['order.created', 1n]]);
  expect(await t.db.emailOutbox.count({ where: { orderId } })).toBe(0);
});
