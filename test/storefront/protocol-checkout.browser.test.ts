// The payment page of a UCP checkout no payment handler could take (its continue_url; docs/agentic-checkout.md,
// "Storefront payment page") in Chromium with JavaScript switched off: a platform builds the checkout over the REST
// binding and escalates it, the buyer opens continue_url, sees the lines, totals, delivery and e-mail the assistant
// gathered, places the order with the shop's provider (manual) and lands on the order page; the checkout session is
// completed and the order is the protocol's. Each page is axe-clean, fits 390 px without horizontal scrolling, and is
// screenshot at 1280 and 390 px (TEST_ARTIFACTS_DIR, default test-artifacts/storefront).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { checkout, createBody, paymentWith, startPlatform, total, ucp, ucpApp, type Platform, type UcpCheckout } from '../ucp/helpers.ts';
import { listenForBrowser, openShopper, watchErrors, type Shopper } from './chromium.ts';

let t: TestApp;
let p: Platform;
let origin: string;
let shopper: Shopper;

beforeAll(async () => {
  t = await ucpApp();
  origin = await listenForBrowser(t.app);
  p = await startPlatform(t);
  // The page needs no cookie, only its signed link: the twin that runs axe opens it as it is.
  shopper = await openShopper(origin);
}, 60_000);
afterAll(async () => {
  await shopper?.close();
  await p?.close();
  await t?.close();
});

/** The flower shop sells in USD (seed --ucp-flower-shop) with an English storefront: what its amounts should read. */
const usd = (cents: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(cents / 100);

/** A checkout the platform built and could not pay (a handler the shop does not offer): its continue_url on this server. */
async function escalated(items: Array<[string, number]>): Promise<{ c: UcpCheckout; url: string }> {
  const c = checkout(await ucp(t, p, 'POST', '/ucp/checkout-sessions', createBody(items, true)), 201);
  const e = checkout(await ucp(t, p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('tok', 'com.example.wallet')));
  expect(e.status).toBe('requires_escalation');
  expect(e.continue_url).toBeDefined();
  const continueUrl = new URL(e.continue_url!);
  expect(continueUrl.pathname).toMatch(new RegExp(`^/checkout/ucp/${c.id}/[A-Za-z0-9_-]+$`));
  return { c: e, url: `${origin}${continueUrl.pathname}` };
}

/** The definition list of totals as [term, amount] pairs, as a buyer reads them. */
const totalsOf = (page: Page) =>
  page.$$eval('main dl.totals dt', (terms) => terms.map((dt) => [dt.textContent?.trim() ?? '', dt.nextElementSibling?.textContent?.trim() ?? '']));

describe('a buyer without JavaScript finishing an assistant’s UCP checkout', () => {
  it('sees what the assistant put together, places the order and lands on its page; the session is completed', async () => {
    const { c, url } = await escalated([['bouquet_tulips', 2], ['pot_ceramic', 1]]);
    const page = await shopper.browser.context.newPage();
    const errors = watchErrors(page);
    try {
      await page.goto(url);
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      expect(await page.textContent('h1')).toBe('Complete your purchase');
      // The lines and totals are the checkout's own, line by line.
      const lines = await page.$$eval('main .summary-lines li', (items) => items.map((li) => Array.from(li.querySelectorAll('span'), (s) => s.textContent?.trim())));
      expect(lines).toEqual(
        c.line_items.map((l) => [`${l.quantity} × ${l.item.title}`, usd(l.totals.find((x) => x.type === 'subtotal')?.amount ?? l.item.price * l.quantity)]),
      );
      const shipping = total(c, 'fulfillment')!;
      expect(await totalsOf(page)).toEqual([
        ['Subtotal', usd(total(c, 'subtotal')!)],
        ['Shipping', shipping === 0 ? 'Free' : usd(shipping)],
        ['Total', usd(total(c, 'total')!)],
      ]);
      expect(total(c, 'total')).toBe(total(c, 'subtotal')! + shipping);
      expect(await page.textContent('main address')).toContain('123 Market St');
      expect(await page.textContent('main')).toContain('buyer@example.com');
      // The one thing it asks: the buyer's go-ahead. No field to fill in, the total it agreed to travels along.
      expect(await page.locator('main form input:not([type=hidden])').count()).toBe(0);
      expect(await page.inputValue('main form input[name=expectedTotal]')).toBe(String(total(c, 'total')));
      await shopper.check(page, 'ucp-pay');

      await page.click('main form button[type=submit]');
      const landed = new URL(page.url());
      const order = await t.db.order.findFirstOrThrow({ where: { acpSessionId: c.id }, include: { items: true } });
      expect(landed.pathname).toMatch(new RegExp(`^/orders/${order.id}/[A-Za-z0-9_-]{43}$`));
      expect(await page.textContent('main .notice--ok')).toContain('Your order has been placed');
      expect(await page.textContent('main .order-facts')).toContain(order.id);
      expect(await page.textContent('main')).toContain(usd(total(c, 'total')!));
      await shopper.check(page, 'ucp-pay-order');

      expect(order).toMatchObject({
        channel: 'ucp', status: 'pending_payment', paymentMethod: 'manual', email: 'buyer@example.com', totalDkk: BigInt(total(c, 'total')!), shippingDkk: BigInt(shipping),
      });
      expect(order.items.map((i) => [i.variantId, i.quantity]).sort()).toEqual([['bouquet_tulips', 2n], ['pot_ceramic', 1n]]);
      expect(await t.db.checkoutSession.findUniqueOrThrow({ where: { id: c.id } })).toMatchObject({ protocol: 'ucp', status: 'completed', orderId: order.id });
      expect(checkout(await ucp(t, p, 'GET', `/ucp/checkout-sessions/${c.id}`)).status).toBe('completed');

      // Back on continue_url: done, with the way to the order, and nothing left to submit.
      await page.goto(url);
      expect(await page.textContent('main [role=status]')).toContain('This purchase is complete.');
      expect(await page.locator('main form').count()).toBe(0);
      await page.click('main [role=status] a');
      expect(new URL(page.url()).pathname).toBe(landed.pathname);
      expect(errors).toEqual([]);
      expect(shopper.browser.foreign).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('is asked for the e-mail the assistant left out, refused an address that is none, and places the order with it', async () => {
    const { c, url } = await escalated([['pot_ceramic', 1]]);
    checkout(await ucp(t, p, 'PUT', `/ucp/checkout-sessions/${c.id}`, { line_items: createBody([['pot_ceramic', 1]]).line_items, buyer: null }));
    const page = await shopper.browser.context.newPage();
    const errors = watchErrors(page);
    try {
      await page.goto(url);
      expect(await page.locator('main [role=status]').count()).toBe(0);
      expect(await page.getAttribute('main form input#f-email', 'type')).toBe('email');
      await shopper.check(page, 'ucp-pay-email');
      // Without script the browser's own check is all that stops a bad address before the server: skip it.
      await page.fill('main form input#f-email', 'not-an-address');
      await page.$eval('main form', (form) => form.setAttribute('novalidate', ''));
      await page.click('main form button[type=submit]');
      expect(await page.getAttribute('main form input#f-email', 'aria-invalid')).toBe('true');
      expect(await page.textContent('main .field-error')).toContain('Enter an e-mail address');
      expect(await t.db.order.count({ where: { acpSessionId: c.id } })).toBe(0);
      await shopper.check(page, 'ucp-pay-email-invalid');

      await page.fill('main form input#f-email', 'ada@example.com');
      await page.click('main form button[type=submit]');
      const order = await t.db.order.findFirstOrThrow({ where: { acpSessionId: c.id } });
      expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/orders/${order.id}/`));
      expect(order).toMatchObject({ email: 'ada@example.com', channel: 'ucp' });
      expect(await t.db.checkoutSession.findUniqueOrThrow({ where: { id: c.id } })).toMatchObject({ status: 'completed', buyer: { email: 'ada@example.com' } });
      // The refused address is the one answer that is no 2xx (422, the page shown again): nothing else failed.
      expect(errors).toEqual([expect.stringContaining('status of 422')]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
