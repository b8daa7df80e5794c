// The buyer's e-mails with card payments (docs/email.md, "Kinds"; docs/payments.md): a Stripe checkout writes no
// confirmation (nothing is paid yet); Stripe's signed event that makes the order paid writes it in the same
// transaction, once, also when the event arrives again; the worker sends it to a real local SMTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmailWorker, type EmailWorker } from '../../src/email/worker.ts';
import { sleep } from '../helpers/calls.ts';
import { paymentsWorld, sessionOf, type PaymentsWorld } from '../payments/setup.ts';
import { plainSpaces, startSmtp, type TestSmtp } from './smtp.ts';

let smtp: TestSmtp;
let w: PaymentsWorld;
let worker: EmailWorker;
beforeAll(async () => {
  smtp = await startSmtp();
  w = await paymentsWorld({ env: { SMTP_URL: smtp.url } });
  worker = startEmailWorker({ db: w.t.db, email: w.t.config.email!, log: w.t.app.log, pollIntervalMs: 25 });
});
afterAll(async () => {
  await worker?.stop();
  await w?.close();
  await smtp?.close();
});

const outboxOf = (orderId: string) => w.t.db.emailOutbox.findMany({ where: { orderId } });

describe('order confirmation of a card payment', () => {
  it('is not written at checkout, but when Stripe says the order is paid; a replayed event writes none more', async () => {
    const placed = await w.checkout(2);
    expect(placed.payment.provider).toBe('stripe');
    expect(await outboxOf(placed.orderId)).toHaveLength(0);

    const { session } = w.stripe.pay(sessionOf(w.stripe, placed.orderId).id as string, 'mobilepay');
    const event = w.stripe.event('checkout.session.completed', session);
    expect((await w.deliver(event)).statusCode).toBe(200);
    expect(await outboxOf(placed.orderId)).toHaveLength(1);

    const [mail] = await smtp.waitFor(1);
    expect(mail.subject).toBe(`Ordrebekræftelse ${placed.orderId} fra Agent Shop`);
    const text = plainSpaces(mail.text);
    expect(text).toContain('Vi har modtaget din betaling, og ordren er bekræftet.');
    expect(text).not.toContain('Sådan betaler du');
    expect(text).toContain('Varer i alt: 200,00 kr.\nFragt: 49,00 kr.\nI alt: 249,00 kr.');
    await expect.poll(async () => (await w.order(placed.orderId)).confirmationEmailSentAt).not.toBeNull();

    expect((await w.deliver(event)).statusCode).toBe(200);
    await sleep(300);
    expect(await outboxOf(placed.orderId)).toHaveLength(1);
    expect(smtp.received.filter((m) => m.subject.includes(placed.orderId))).toHaveLength(1);
  });
});
