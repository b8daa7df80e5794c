// The buyer's e-mails end to end (docs/email.md): orders placed and moved over the tools' HTTP routes, the e-mail
// worker sending from the outbox to a real SMTP server on a local port, and what arrives read back and asserted:
// the order confirmation of a manual payment at checkout (what to pay and how), the confirmation when an order
// becomes paid (once), the shipping notice with carrier and tracking link, Danish and English, HTML escaped.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmailWorker, type EmailWorker } from '../../src/email/worker.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { lastAudit, okResult, sleep } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createProduct, makeDiscount, makeOrder, makeProduct } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';
import { plainSpaces, startSmtp, type ReceivedEmail, type TestSmtp } from './smtp.ts';

let smtp: TestSmtp;
let t: TestApp;
let key: string;
let worker: EmailWorker;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'butik@example.dk' } });
  key = await t.key();
  worker = startEmailWorker({ db: t.db, email: t.config.email!, log: t.app.log, pollIntervalMs: 25 });
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await smtp?.close();
});
afterEach(async () => {
  // Back to the defaults: Danish, "Agent Shop".
  await t.db.shopSettings.updateMany({ data: { language: 'da', shopName: 'Agent Shop' } });
});

/** The e-mails received for an order (its id is in every subject), once `count` have arrived. */
async function emailsOf(orderId: string, count: number): Promise<ReceivedEmail[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const found = smtp.received.filter((m) => m.subject.includes(orderId));
    if (found.length >= count || Date.now() > until) return found;
    await sleep(20);
  }
}

/** The e-mails received for an order so far. */
const receivedFor = (orderId: string) => smtp.received.filter((m) => m.subject.includes(orderId));

/** Lets the worker poll a few times, so an e-mail that should not exist would have been sent by now. */
const settle = async () => {
  await sleep(300);
};

/** A product with a Size option (variant M, 1.234,50 kr.) checked out with manual payment; returns the order id. */
async function manualCheckout(contact: Record<string, string> = {}): Promise<string> {
  const product = await createProduct(t, key, { name: 'Linen shirt', priceDkk: 123_450, stock: 5 });
  okResult(await t.call('products.set_options', { slug: product.slug, options: [{ name: 'Size', values: ['S', 'M'] }] }, key));
  const m = await t.db.productVariant.findFirstOrThrow({ where: { productId: product.id, optionValues: { has: 'M' } } });
  await t.db.productVariant.update({ where: { id: m.id }, data: { stock: 5n } });
  const cart = okResult<{ cartId: string }>(await t.call('cart.create', { items: [{ variantId: m.id, quantity: 1 }] }, key));
  const placed = okResult<{ orderId: string; payment: { provider: string } }>(
    await t.call('checkout.create_order', { cartId: cart.cartId, ...CHECKOUT_CONTACT, ...contact }, key),
  );
  expect(placed.payment.provider).toBe('manual');
  return placed.orderId;
}

const outboxOf = (orderId: string) => t.db.emailOutbox.findMany({ where: { orderId }, orderBy: { createdAt: 'asc' } });

/** The order's e-mail rows once none is pending any more (the worker records right after the server accepted). */
async function recorded(orderId: string) {
  for (let waited = 0; ; waited += 20) {
    const rows = await outboxOf(orderId);
    if (rows.every((r) => r.status !== 'pending') || waited > 5_000) return rows;
    await sleep(20);
  }
}
const setStatus = (orderId: string, status: string, extra: Record<string, unknown> = {}) =>
  t.call('orders.update_status', { orderId, status, ...extra }, key);

describe('order confirmation of a manually paid order, at checkout', () => {
  it('says what to pay and how, with the lines, their options, the totals and the address, in Danish by default', async () => {
    const orderId = await manualCheckout();
    const [mail] = await emailsOf(orderId, 1);
    // To the address the buyer gave (Buyer@Example.com); nodemailer writes the domain in lower case.
    expect(mail.to).toEqual(['Buyer@example.com']);
    expect(mail.from).toBe('butik@example.dk');
    expect(mail.subject).toBe(`Ordrebekræftelse ${orderId} fra Agent Shop`);
    const text = plainSpaces(mail.text);
    expect(text).toContain('Hej Ada Buyer,');
    expect(text).toContain('sender den, så snart din betaling er kommet frem');
    expect(text).toContain(`Sådan betaler du\nBeløb: 1.234,50 kr.\nBetalingsreference: ${orderId}`);
    expect(text).toContain('skriv ordrenummeret som reference');
    expect(text).toContain('- Linen shirt (Size: M)\n  1 × 1.234,50 kr. = 1.234,50 kr.');
    expect(text).toContain('Varer i alt: 1.234,50 kr.\nFragt: 0,00 kr.\nI alt: 1.234,50 kr.\nHeraf moms: 246,90 kr.');
    expect(text).toContain('Leveringsadresse\nAda Buyer\nTestvej 1\n8000 Aarhus');
    const html = plainSpaces(mail.html);
    expect(html).toContain('<html lang="da-DK">');
    expect(html).toContain('<td style="padding:4px 8px 4px 0;vertical-align:top">Beløb</td><td style="padding:4px 8px 4px 0;vertical-align:top">1.234,50 kr.</td>');
    expect(html).toContain('Linen shirt<br><small>Size: M</small>');
    // Sent once, recorded, and the order's confirmationEmailSentAt stamped.
    const [row] = await recorded(orderId);
    expect(row).toMatchObject({ kind: 'order_confirmation', status: 'sent', attempts: 1, lastError: null });
    expect(mail.messageId).toBe(`<${row.id}@example.dk>`);
    const order = okResult<{ confirmationEmailSentAt: string | null }>(await t.call('orders.get', { orderId }, key));
    expect(order.confirmationEmailSentAt).not.toBeNull();
  });

  it('is in English when the shop’s language is English, with the discount and its code', async () => {
    okResult(await t.call('settings.update', { language: 'en-GB', shopName: 'Nordic Linen' }, key));
    await makeDiscount(t.db, { code: 'TENOFF', type: 'percent', value: 10 });
    const orderId = await manualCheckout({ discountCode: 'TENOFF' });
    const [mail] = await emailsOf(orderId, 1);
    expect(mail.subject).toBe(`Order confirmation ${orderId} from Nordic Linen`);
    const text = plainSpaces(mail.text);
    expect(text).toContain('Hello Ada Buyer,');
    expect(text).toContain(`How to pay\nAmount: DKK 1,111.05\nPayment reference: ${orderId}`);
    expect(text).toContain('quoting the order number as the reference');
    expect(text).toContain('Subtotal: DKK 1,234.50\nDiscount (TENOFF): -DKK 123.45\nShipping: DKK 0.00\nTotal: DKK 1,111.05\nIncluding VAT: DKK 222.21');
    expect(text).toContain('Delivery address\nAda Buyer');
    expect(text).toContain('Kind regards\nNordic Linen');
    expect(mail.html).toContain('<html lang="en-GB">');
  });

  it('is the only confirmation: paying the order afterwards sends none', async () => {
    const orderId = await manualCheckout();
    await emailsOf(orderId, 1);
    okResult(await setStatus(orderId, 'paid'));
    await settle();
    expect(receivedFor(orderId)).toHaveLength(1);
    expect(await outboxOf(orderId)).toHaveLength(1);
  });

  it('escapes what the buyer and the shop typed in the HTML part, and keeps it as typed in the text part', async () => {
    okResult(await t.call('settings.update', { shopName: 'Bo & <Co>' }, key));
    const orderId = await manualCheckout({ shippingName: '<script>alert("x")</script>', shippingAddress: `<img src=x onerror='y'> 1` });
    const [mail] = await emailsOf(orderId, 1);
    expect(mail.subject).toBe(`Ordrebekræftelse ${orderId} fra Bo & <Co>`);
    expect(mail.text).toContain('Hej <script>alert("x")</script>,');
    expect(mail.text).toContain(`<img src=x onerror='y'> 1`);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('Hej &#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;,');
    expect(mail.html).toContain('&#60;img src=x onerror=&#39;y&#39;&#62; 1');
    expect(mail.html).toContain('Bo &#38; &#60;Co&#62;');
  });
});

describe('order confirmation when an order becomes paid', () => {
  it('is sent once, and not again after paid → flagged_review → paid', async () => {
    const product = await makeProduct(t.db, { name: 'Wool socks' });
    const order = await makeOrder(t.db, { items: [{ productId: product.id, quantity: 2, unitPriceDkk: 9_950, productName: 'Wool socks' }] });
    expect(await outboxOf(order.id)).toHaveLength(0);
    okResult(await setStatus(order.id, 'paid'));
    const [mail] = await emailsOf(order.id, 1);
    expect(mail.subject).toBe(`Ordrebekræftelse ${order.id} fra Agent Shop`);
    const text = plainSpaces(mail.text);
    expect(text).toContain('Vi har modtaget din betaling, og ordren er bekræftet.');
    expect(text).not.toContain('Sådan betaler du');
    expect(text).toContain('- Wool socks\n  2 × 99,50 kr. = 199,00 kr.');

    okResult(await setStatus(order.id, 'flagged_review'));
    okResult(await setStatus(order.id, 'paid'));
    await settle();
    expect(receivedFor(order.id)).toHaveLength(1);
    expect(await outboxOf(order.id)).toHaveLength(1);
  });

  it('is written in the transaction of the move: a refused move writes none', async () => {
    const order = await makeOrder(t.db, { status: 'cancelled' });
    expectProblem(await setStatus(order.id, 'paid'), 422, 'illegal_transition');
    expect(await outboxOf(order.id)).toHaveLength(0);
  });
});

describe('shipping notice', () => {
  const tracking = { carrier: 'PostNord', trackingNumber: '00370712345678901234', trackingUrl: 'https://tracking.example.com/parcel?id=0037&lang=da' };

  it('tells carrier, tracking number and link when the order becomes shipped; they are stored and audited', async () => {
    const product = await makeProduct(t.db, { name: 'Rain jacket' });
    const order = await makeOrder(t.db, { status: 'paid', paidAt: new Date(), items: [{ productId: product.id, quantity: 1, unitPriceDkk: 89_900, productName: 'Rain jacket' }] });
    okResult(await setStatus(order.id, 'shipped', tracking));
    const row = await t.db.order.findUniqueOrThrow({ where: { id: order.id } });
    expect(row).toMatchObject({ status: 'shipped', ...tracking });
    const audit = await lastAudit(t, 'orders.update_status', order.id);
    expect(audit.before).toMatchObject({ carrier: null, trackingNumber: null, trackingUrl: null });
    expect(audit.after).toMatchObject(tracking);

    const [mail] = await emailsOf(order.id, 1);
    expect(mail.subject).toBe(`Din ordre ${order.id} fra Agent Shop er sendt`);
    const text = plainSpaces(mail.text);
    expect(text).toContain('Godt nyt: din ordre fra Agent Shop er sendt og er på vej til dig.');
    expect(text).toContain(`Forsendelse\nFragtfirma: PostNord\nTrackingnummer: 00370712345678901234\nFølg din pakke: ${tracking.trackingUrl}`);
    expect(text).toContain('- Rain jacket\n  1 × 899,00 kr. = 899,00 kr.');
    expect(mail.html).toContain('<a href="https://tracking.example.com/parcel?id=0037&#38;lang=da">https://tracking.example.com/parcel?id=0037&#38;lang=da</a>');
    const [email] = await recorded(order.id);
    expect(email).toMatchObject({ kind: 'shipping_notice', status: 'sent' });
    // A shipping notice is not a confirmation.
    expect(row.confirmationEmailSentAt).toBeNull();
  });

  it('in English: carrier, tracking number and link', async () => {
    okResult(await t.call('settings.update', { language: 'en' }, key));
    const order = await makeOrder(t.db, { status: 'processing' });
    okResult(await setStatus(order.id, 'shipped', tracking));
    const [mail] = await emailsOf(order.id, 1);
    expect(mail.subject).toBe(`Your order ${order.id} from Agent Shop has shipped`);
    expect(mail.text).toContain(`Shipment\nCarrier: PostNord\nTracking number: 00370712345678901234\nTrack your parcel: ${tracking.trackingUrl}`);
  });

  it('says there is no tracking when none was given', async () => {
    const order = await makeOrder(t.db, { status: 'paid' });
    okResult(await setStatus(order.id, 'shipped'));
    const [mail] = await emailsOf(order.id, 1);
    expect(mail.text).toContain('Der er ingen sporingsoplysninger til denne forsendelse.');
  });

  it('refuses carrier and tracking with any status but shipped (422 tracking_requires_shipped), and a non-https link (400); nothing changes', async () => {
    const order = await makeOrder(t.db, { status: 'pending_payment' });
    const problem = expectProblem(await setStatus(order.id, 'paid', { carrier: 'GLS' }), 422, 'tracking_requires_shipped');
    expect(problem.detail).toContain('"paid"');
    const paid = await makeOrder(t.db, { status: 'paid' });
    expectProblem(await setStatus(paid.id, 'shipped', { trackingUrl: 'http://tracking.example.com/1' }), 400, 'invalid_request');
    expectProblem(await setStatus(paid.id, 'shipped', { trackingUrl: 'javascript:alert(1)' }), 400, 'invalid_request');
    for (const id of [order.id, paid.id]) {
      const row = await t.db.order.findUniqueOrThrow({ where: { id } });
      expect(row.carrier).toBeNull();
      expect(row.trackingUrl).toBeNull();
      expect(await outboxOf(id)).toHaveLength(0);
    }
    expect((await t.db.order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe('pending_payment');
    expect((await t.db.order.findUniqueOrThrow({ where: { id: paid.id } })).status).toBe('paid');
  });
});
