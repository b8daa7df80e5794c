// A migration that adds a column while the service runs (expand-only, docs/deploy.md) must not break the prepared
// statements that read whole rows: PostgreSQL refuses a prepared `SELECT *` whose result changed ("cached plan must
// not change result type") on every connection that prepared it. Those statements name this build's columns
// (columnsOf, src/db/sql-literal.ts). Here each runs once, the tables gain a column, and each runs again on the same
// pooled connections: a session created, read and completed, then its order moved.
import { expect, it } from 'vitest';
import { checkout, createBody, paymentWith, ucp, useUcp } from '../ucp/helpers.ts';

const ctx = useUcp();
const TABLES = ['"Order"', '"OrderItem"', '"CheckoutSession"'];

async function sellAndMove(admin: string): Promise<void> {
  const c = checkout(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody([['bouquet_tulips', 1]], true)), 201);
  expect(checkout(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`)).id).toBe(c.id);
  const done = checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')));
  expect(done.status).toBe('completed');
  const moved = await ctx.t.call('orders.update_status', { orderId: done.order!.id, status: 'paid' }, admin);
  expect(moved.statusCode, moved.body).toBe(200);
  expect((await ctx.t.db.order.findUniqueOrThrow({ where: { id: done.order!.id } })).status).toBe('paid');
}

it('sessions and order moves keep working on their prepared statements after a migration adds columns', async () => {
  const admin = await ctx.t.key(['orders:write']);
  await sellAndMove(admin);
  try {
    for (const table of TABLES) await ctx.t.db.$executeRawUnsafe(`ALTER TABLE ${table} ADD COLUMN "addedByNextRelease" text`);
    await sellAndMove(admin);
  } finally {
    for (const table of TABLES) await ctx.t.db.$executeRawUnsafe(`ALTER TABLE ${table} DROP COLUMN IF EXISTS "addedByNextRelease"`);
  }
}, 60_000);
