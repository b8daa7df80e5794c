// The storefront's payment page of a UCP checkout no payment handler could take (its continue_url), over HTTP on
// PostgreSQL: reached only by its signed link, no script, within the storefront's CSP; the buyer places the order
// with the shop's provider (manual here), completing the same checkout session (stock taken, channel ucp), which
// the platform then reads as completed.
import { describe, expect, it } from 'vitest';
import { STOREFRONT_CSP } from '../../src/storefront/respond.ts';
import { checkout, createBody, paymentWith, total, ucp, useUcp } from '../ucp/helpers.ts';

const ctx = useUcp();

/** A ready checkout the platform could not pay (a handler this shop does not offer): its page's path. */
async function escalated(items: Array<[string, number]> = [['bouquet_tulips', 2]]) {
  const c = checkout(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', createBody(items, true)), 201);
  const e = checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('tok', 'com.example.wallet')));
  expect(e.status).toBe('requires_escalation');
  return { c, page: new URL(e.continue_url!).pathname };
}

const post = (url: string, payload: string) =>
  ctx.t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });

describe('the payment page of an assistant’s checkout', () => {
  it('shows the lines, totals and delivery without script, within the CSP, privately', async () => {
    const { c, page } = await escalated();
    const res = await ctx.t.app.inject({ method: 'GET', url: page });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(STOREFRONT_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).not.toMatch(/<script(?! type="application\/ld\+json")/);
    expect(res.body).toContain('2 × Spring Tulips');
    expect(res.body).toContain('123 Market St');
    expect(res.body).toContain(`action="${page}"`);
    expect(res.body).toContain(`name="expectedTotal" value="${total(c, 'total')}"`);
    expect(res.body).toContain('Place order');
  });

  it('is not found without the right signature', async () => {
    const { c, page } = await escalated();
    expect((await ctx.t.app.inject({ method: 'GET', url: `/checkout/ucp/${c.id}` })).statusCode).toBe(404);
    expect((await ctx.t.app.inject({ method: 'GET', url: `${page.slice(0, -2)}xx` })).statusCode).toBe(404);
    expect((await post(`${page.slice(0, -2)}xx`, `expectedTotal=${total(c, 'total')}`)).statusCode).toBe(404);
    expect(await ctx.t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
  });

  it('places the order, completing the same checkout: stock taken, channel ucp, audited; the platform reads it completed', async () => {
    const { c, page } = await escalated([['bouquet_tulips', 2]]);
    const stockBefore = (await ctx.t.db.productVariant.findUniqueOrThrow({ where: { id: 'bouquet_tulips' } })).stock;
    const res = await post(page, `expectedTotal=${total(c, 'total')}`);
    expect(res.statusCode, res.body).toBe(303);
    const order = await ctx.t.db.order.findFirstOrThrow({ where: { acpSessionId: c.id } });
    expect(res.headers.location).toMatch(new RegExp(`^/orders/${order.id}/[A-Za-z0-9_-]+\\?placed=1$`));
    expect(order).toMatchObject({ channel: 'ucp', status: 'pending_payment', paymentMethod: 'manual', totalDkk: BigInt(total(c, 'total')!), aiAgentSource: 'test' });
    expect((await ctx.t.db.productVariant.findUniqueOrThrow({ where: { id: 'bouquet_tulips' } })).stock).toBe(stockBefore - 2n);
    const orderPage = await ctx.t.app.inject({ method: 'GET', url: res.headers.location as string });
    expect(orderPage.statusCode).toBe(200);
    const read = checkout(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`));
    expect(read.status).toBe('completed');
    expect(read.order?.id).toBe(order.id);
    const audit = await ctx.t.db.auditEntry.findMany({ where: { tool: 'storefront.checkout_session', entityId: { in: [c.id, order.id] } } });
    expect(audit.map((a) => a.entityType).sort()).toEqual(['checkout_session', 'order']);
    // The page now says it is done and links the order; a second post changes nothing.
    const after = await ctx.t.app.inject({ method: 'GET', url: page });
    expect(after.body).toContain('This purchase is complete.');
    expect(after.body).not.toContain('method="post"');
    expect((await post(page, `expectedTotal=${total(c, 'total')}`)).statusCode).toBe(422);
    expect(await ctx.t.db.order.count({ where: { acpSessionId: c.id } })).toBe(1);
  });

  it('shows the page again (422) when the total changed, placing nothing', async () => {
    const { c, page } = await escalated([['pot_ceramic', 1]]);
    const res = await post(page, `expectedTotal=${total(c, 'total')! - 1}`);
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('role="alert"');
    expect(await ctx.t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
    expect(checkout(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`)).status).toBe('requires_escalation');
  });

  it('offers no payment while the checkout lacks something (the platform changed it after the escalation)', async () => {
    const { c, page } = await escalated([['pot_ceramic', 1]]);
    checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, { line_items: createBody([['pot_ceramic', 1]]).line_items, fulfillment: null }));
    const res = await ctx.t.app.inject({ method: 'GET', url: page });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('not ready yet');
    expect(res.body).not.toContain('method="post"');
  });

  it('asks for the buyer’s e-mail when the platform left it out (UCP allows that), and places the order with the one typed', async () => {
    const { c, page } = await escalated([['pot_ceramic', 1]]);
    const without = checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, { line_items: createBody([['pot_ceramic', 1]]).line_items, buyer: null }));
    // The platform itself could complete it: only the buyer's own page needs the address.
    expect(without.status).not.toBe('incomplete');
    const shown = await ctx.t.app.inject({ method: 'GET', url: page });
    expect(shown.body).toContain('method="post"');
    expect(shown.body).toMatch(/<input type="email" id="f-email" name="email"[^>]* required/);
    const placeNone = async (payload: string) => {
      const res = await post(page, payload);
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain('aria-invalid="true"');
      expect(res.body).toContain('Enter an e-mail address such as name@example.com.');
      expect(await ctx.t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
      return res;
    };
    // Without an e-mail, or with one that is not an address: the field is marked (what was typed kept), nothing placed.
    await placeNone(`expectedTotal=${total(c, 'total')}`);
    expect((await placeNone(`expectedTotal=${total(c, 'total')}&email=not-an-address`)).body).toContain('value="not-an-address"');
    expect((await ctx.t.db.checkoutSession.findUniqueOrThrow({ where: { id: c.id } })).buyer).toBeNull();

    const res = await post(page, `expectedTotal=${total(c, 'total')}&email=${encodeURIComponent(' ada@example.com ')}`);
    expect(res.statusCode, res.body).toBe(303);
    const order = await ctx.t.db.order.findFirstOrThrow({ where: { acpSessionId: c.id } });
    expect(order).toMatchObject({ email: 'ada@example.com', channel: 'ucp' });
    const session = await ctx.t.db.checkoutSession.findUniqueOrThrow({ where: { id: c.id } });
    expect(session).toMatchObject({ status: 'completed', orderId: order.id, buyer: { email: 'ada@example.com' } });
    // One audit entry of the session, from the checkout as the platform left it to the completed one with the e-mail.
    const [entry] = await ctx.t.db.auditEntry.findMany({ where: { tool: 'storefront.checkout_session', entityId: c.id } });
    expect(entry).toMatchObject({ before: expect.objectContaining({ buyer: null }), after: expect.objectContaining({ status: 'completed', buyer: { email: 'ada@example.com' } }) });
  });
});
