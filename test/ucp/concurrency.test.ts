// Completion takes stock with checkout.create_order's guarantees: twenty platforms' checkouts completing at once
// for a variant with 3 units in stock place exactly 3 orders, and the stock ends at 0, never below.
import { expect, it } from 'vitest';
import { checkout, createBody, paymentWith, ucp, ucpError, useUcp } from './helpers.ts';

const ctx = useUcp();

it('20 concurrent completions of a variant with stock 3 place exactly 3 orders', async () => {
  await ctx.t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { stock: 3n } });
  const sessions = [];
  for (let i = 0; i < 20; i++) sessions.push(checkout(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody([['pot_ceramic', 1]], true)), 201));
  const answers = await Promise.all(sessions.map((s) => ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${s.id}/complete`, paymentWith('success_token'))));
  const completed = answers.filter((a) => a.statusCode === 200);
  expect(completed).toHaveLength(3);
  for (const a of completed) expect(checkout(a).status).toBe('completed');
  for (const a of answers.filter((x) => x.statusCode !== 200)) ucpError(a, 400, 'out_of_stock');
  expect((await ctx.t.db.productVariant.findUniqueOrThrow({ where: { id: 'pot_ceramic' } })).stock).toBe(0n);
  expect(await ctx.t.db.order.count({ where: { channel: 'ucp', items: { some: { variantId: 'pot_ceramic' } } } })).toBe(3);
  expect(await ctx.t.db.checkoutSession.count({ where: { id: { in: sessions.map((s) => s.id) }, status: 'completed' } })).toBe(3);
}, 60_000);
