// How the e-mail outbox delivers (docs/email.md, "Delivery"): retried with backoff while the SMTP server is down and
// delivered once when it is back; failed for good after the schedule or at once for a refused recipient; never lost
// when the worker holding it dies (the lease); sent again with the same Message-ID when the process dies between
// the server's acceptance and the record; SMTP AUTH with SMTP_URL's credentials; and without SMTP_URL, nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EmailConfig } from '../../src/config.ts';
import { createDb } from '../../src/db/client.ts';
import { claimEmails } from '../../src/email/queue.ts';
import { startEmailWorker, type EmailWorker } from '../../src/email/worker.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult, sleep } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, makeOrder, makeProduct } from '../helpers/factories.ts';
import { startSmtp, type TestSmtp } from './smtp.ts';

let smtp: TestSmtp;
let t: TestApp;
let key: string;
let workers: EmailWorker[] = [];

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ env: { SMTP_URL: smtp.url } });
  key = await t.key();
});
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  workers = [];
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** A worker on the test's database; `email` replaces parts of the app's SMTP settings. */
function worker(opts: { email?: Partial<EmailConfig>; db?: TestApp['db']; leaseMs?: number } = {}): EmailWorker {
  const started = startEmailWorker({ db: opts.db ?? t.db, email: { ...t.config.email!, ...opts.email }, log: t.app.log, pollIntervalMs: 20, leaseMs: opts.leaseMs });
  workers.push(started);
  return started;
}

/** A checkout with manual payment (its confirmation is written to the outbox); returns the order id. */
async function checkout(email = CHECKOUT_CONTACT.email): Promise<string> {
  const product = await makeProduct(t.db, { priceDkk: 25_000 });
  const cart = okResult<{ cartId: string }>(await t.call('cart.create', { items: [{ productSlug: product.slug, quantity: 1 }] }, key));
  return okResult<{ orderId: string }>(await t.call('checkout.create_order', { cartId: cart.cartId, ...CHECKOUT_CONTACT, email }, key)).orderId;
}

const rowOf = (orderId: string) => t.db.emailOutbox.findFirstOrThrow({ where: { orderId } });

/** Polls the order's e-mail row until `done` holds (fails the test after 10 s). */
async function rowWhen(orderId: string, done: (row: Awaited<ReturnType<typeof rowOf>>) => boolean) {
  for (let waited = 0; ; waited += 20) {
    const row = await rowOf(orderId);
    if (done(row)) return row;
    if (waited > 10_000) expect.fail(`the e-mail row never got there: ${JSON.stringify(row)}`);
    await sleep(20);
  }
}

const receivedFor = (server: TestSmtp, orderId: string) => server.received.filter((m) => m.subject.includes(orderId));

describe('retries', () => {
  it('while the SMTP server is down: retried with backoff, then delivered once when it is back', async () => {
    const down = await startSmtp();
    const { port, received } = down;
    await down.close();
    const orderId = await checkout();
    worker({ email: { smtpUrl: `smtp://127.0.0.1:${port}`, retryScheduleMs: Array(50).fill(100) } });
    const failing = await rowWhen(orderId, (r) => r.attempts >= 2);
    expect(failing).toMatchObject({ status: 'pending', completedAt: null });
    expect(failing.lastError).toMatch(/^(ECONNECTION|ESOCKET|ECONNREFUSED)\b/);
    // Backoff: the next attempt waits for the schedule (100 ms plus jitter), not the 20 ms poll.
    expect(failing.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 20);

    const up = await startSmtp({ port, received });
    try {
      const sent = await rowWhen(orderId, (r) => r.status === 'sent');
      expect(sent.attempts).toBeGreaterThanOrEqual(3);
      expect(sent.lastError).toBeNull();
      await sleep(300);
      expect(receivedFor(up, orderId)).toHaveLength(1);
    } finally {
      await up.close();
    }
  });

  it('fails for good after the last wait of the schedule, keeping the error', async () => {
    const down = await startSmtp();
    await down.close();
    const orderId = await checkout();
    worker({ email: { smtpUrl: `smtp://127.0.0.1:${down.port}`, retryScheduleMs: [50, 50] } });
    const failed = await rowWhen(orderId, (r) => r.status === 'failed');
    expect(failed.attempts).toBe(3);
    expect(failed.lastError).toMatch(/^(ECONNECTION|ESOCKET|ECONNREFUSED)\b/);
    expect(failed.completedAt).not.toBeNull();
    expect((await t.db.order.findUniqueOrThrow({ where: { id: orderId } })).confirmationEmailSentAt).toBeNull();
  });

  it('fails at once when the server refuses the recipient for good (550 to RCPT TO)', async () => {
    const strict = await startSmtp({ refuse: ['nobody@example.com'] });
    try {
      const orderId = await checkout('nobody@example.com');
      worker({ email: { smtpUrl: strict.url } });
      const failed = await rowWhen(orderId, (r) => r.status === 'failed');
      expect(failed.attempts).toBe(1);
      expect(failed.lastError).toMatch(/^EENVELOPE: .*550/);
      expect(strict.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});

describe('crashes', () => {
  it('an e-mail claimed by a worker that died is delivered when the claim’s lease ends: not lost', async () => {
    const orderId = await checkout();
    // The worker that "died": it claimed the row (lease 500 ms) and never sent or recorded anything.
    const claimed = await claimEmails(t.db, 10, 500);
    expect(claimed.map((c) => c.orderId)).toContain(orderId);
    worker();
    await sleep(250);
    expect(receivedFor(smtp, orderId)).toHaveLength(0);
    const sent = await rowWhen(orderId, (r) => r.status === 'sent');
    expect(sent.attempts).toBe(1);
    expect(receivedFor(smtp, orderId)).toHaveLength(1);
  });

  it('a crash between the server’s acceptance and the record sends it again, with the same Message-ID', async () => {
    // The first worker's database goes away while the server is accepting: it cannot record the send.
    const doomedDb = createDb({ connectionString: t.url, poolMax: 1 });
    let first = true;
    const flaky = await startSmtp({
      beforeAccepting: async () => {
        if (!first) return;
        first = false;
        await doomedDb.$disconnect();
      },
    });
    try {
      const orderId = await checkout();
      const doomed = worker({ db: doomedDb, email: { smtpUrl: flaky.url }, leaseMs: 400 });
      await flaky.waitFor(1);
      await sleep(100);
      await doomed.stop();
      expect(await rowOf(orderId)).toMatchObject({ status: 'pending', attempts: 0 });
      // The next worker takes it once the lease is over, and sends it again.
      worker({ email: { smtpUrl: flaky.url } });
      const sent = await rowWhen(orderId, (r) => r.status === 'sent');
      const copies = receivedFor(flaky, orderId);
      expect(copies).toHaveLength(2);
      expect(copies.map((c) => c.messageId)).toEqual([`<${sent.id}@localhost>`, `<${sent.id}@localhost>`]);
      expect(copies[1].text).toBe(copies[0].text);
    } finally {
      await flaky.close();
      await doomedDb.$disconnect().catch(() => {});
    }
  });
});

describe('SMTP authentication', () => {
  it('logs in with SMTP_URL’s user and password; a wrong password fails the attempt (EAUTH) without the password in the stored error', async () => {
    const guarded = await startSmtp({ auth: { user: 'shop@example.com', pass: 'p@ss word/1' } });
    try {
      expect(guarded.url).toContain('shop%40example.com:p%40ss%20word%2F1@');
      const good = await checkout();
      const wrong = guarded.url.replace('p%40ss%20word%2F1', 'wrong-secret');
      worker({ email: { smtpUrl: wrong, retryScheduleMs: [] } });
      const refused = await rowWhen(good, (r) => r.status === 'failed');
      expect(refused.lastError).toMatch(/^EAUTH: /);
      expect(refused.lastError).not.toContain('wrong-secret');
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];

      const orderId = await checkout();
      worker({ email: { smtpUrl: guarded.url } });
      await rowWhen(orderId, (r) => r.status === 'sent');
      expect(receivedFor(guarded, orderId)).toHaveLength(1);
    } finally {
      await guarded.close();
    }
  });
});

describe('without SMTP_URL', () => {
  it('writes no e-mail: not at checkout, not on paid, not on shipped', async () => {
    const plain = await createTestApp();
    try {
      expect(plain.config.email).toBeUndefined();
      const plainKey = await plain.key();
      const product = await makeProduct(plain.db);
      const cart = okResult<{ cartId: string }>(await plain.call('cart.create', { items: [{ productSlug: product.slug, quantity: 1 }] }, plainKey));
      const { orderId } = okResult<{ orderId: string }>(await plain.call('checkout.create_order', { cartId: cart.cartId, ...CHECKOUT_CONTACT }, plainKey));
      const other = await makeOrder(plain.db);
      for (const [id, status] of [[orderId, 'paid'], [orderId, 'shipped'], [other.id, 'paid']] as const) {
        okResult(await plain.call('orders.update_status', { orderId: id, status }, plainKey));
      }
      expect(await plain.db.emailOutbox.count()).toBe(0);
    } finally {
      await plain.close();
    }
  });
});
