import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { EmailConfig } from '../config.ts';
import type { Db } from '../db/client.ts';
import { retryDelayMs } from '../domain/webhook-retry.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { loadSettings } from '../services/settings.ts';
import { claimEmails, markFailed, markSent, markSkipped, type ClaimedEmail } from './queue.ts';
import { renderEmail, type EmailOrder, type EmailShop } from './render.ts';

/** E-mails claimed (and sent in parallel) at a time: the outbox carries a few e-mails per order, not a stream. */
const BATCH = 5;
/** Per SMTP step; an attempt that takes longer fails and is tried again by the schedule. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
/** How long a claimed e-mail is this instance's: longer than an attempt can take with the timeouts above. */
export const EMAIL_LEASE_MS = 120_000;
const POLL_INTERVAL_MS = 1_000;
/** At most this much of an error is kept with the e-mail. */
const STORED_ERROR_CHARS = 1_000;

export type EmailWorker = { stop: () => Promise<void> };

export type EmailWorkerDeps = {
  /** A pool of its own (src/server.ts): its statements do not queue behind the requests' transactions. */
  db: Db;
  email: EmailConfig;
  log: FastifyBaseLogger;
  /** Tests shorten these; the service runs with the defaults. */
  pollIntervalMs?: number;
  leaseMs?: number;
};

/**
 * Sends the outbox's due e-mails from inside the service (docs/email.md, "Delivery"): claims a batch, renders each
 * from its order as it is now and the shop's settings, hands it to the SMTP server and records the outcome at once.
 * An idle worker polls every second; a full batch is followed by the next claim at once.
 */
export function startEmailWorker(deps: EmailWorkerDeps): EmailWorker {
  const { pollIntervalMs = POLL_INTERVAL_MS, leaseMs = EMAIL_LEASE_MS } = deps;
  // One connection per e-mail, no pool: after an outage of the SMTP server no stale pooled connection is tried first.
  const transport = nodemailer.createTransport({ url: deps.email.smtpUrl, ...SMTP_TIMEOUTS });
  let stopping = false;
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => wake?.(), ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });

  const loop = async () => {
    while (!stopping) {
      let batch: ClaimedEmail[] = [];
      try {
        batch = await claimEmails(deps.db, BATCH, leaseMs);
        if (batch.length > 0) {
          const shop = await shopOf(deps.db);
          await Promise.all(batch.map((email) => deliver(deps, transport, email, shop)));
        }
      } catch (err) {
        // The database is away: what was claimed falls due again when its lease ends.
        deps.log.warn({ err }, 'e-mail worker could not claim or record e-mails');
      }
      if (batch.length < BATCH && !stopping) await pause(pollIntervalMs);
    }
  };
  const running = loop();
  return {
    // Claims nothing more and lets the e-mails in flight finish and be recorded (each bounded by the SMTP timeouts);
    // a process killed before that leaves them to the lease.
    async stop() {
      stopping = true;
      wake?.();
      await running;
      transport.close();
    },
  };
}

type Transport = ReturnType<typeof nodemailer.createTransport>;

async function shopOf(db: Db): Promise<EmailShop> {
  const settings = await loadSettings(db);
  return { name: settings.shopName, language: settings.language };
}

async function deliver(deps: EmailWorkerDeps, transport: Transport, email: ClaimedEmail, shop: EmailShop): Promise<void> {
  const order = await deps.db.order.findUnique({ where: { id: email.orderId }, include: { items: { orderBy: { id: 'asc' } } } });
  // Deleting an order deletes its e-mails (cascade); one deleted meanwhile has nothing left to record.
  if (!order) return;
  if (email.kind === 'order_confirmation' && order.status === 'cancelled') {
    await markSkipped(deps.db, email, 'the order was cancelled before its confirmation was sent');
    return;
  }
  const message = renderEmail(email.kind, emailOrder(order), shop);
  const { from } = deps.email;
  const domain = from.address.slice(from.address.lastIndexOf('@') + 1);
  try {
    await transport.sendMail({
      from: { name: from.name ?? shop.name, address: from.address },
      to: order.email,
      subject: message.subject,
      text: message.text,
      html: message.html,
      // The same on every attempt: a copy sent again after a crash (see markSent) is recognisably the same message,
      // which receiving systems that deduplicate by Message-ID drop.
      messageId: `<${email.id}@${domain}>`,
    });
  } catch (err) {
    const { error, final } = describeFailure(err);
    const retryInMs = final ? null : retryDelayMs(email.attempts + 1, deps.email.retryScheduleMs);
    deps.log.warn({ email: email.id, order: email.orderId, kind: email.kind, attempt: email.attempts + 1, error, retrying: retryInMs !== null }, 'e-mail not sent');
    await markFailed(deps.db, email, error, retryInMs);
    return;
  }
  await markSent(deps.db, email);
}

function emailOrder(o: Prisma.OrderGetPayload<{ include: { items: true } }>): EmailOrder {
  return {
    ...o,
    subtotalDkk: Number(o.subtotalDkk),
    discountDkk: Number(o.discountDkk),
    shippingDkk: Number(o.shippingDkk),
    totalDkk: Number(o.totalDkk),
    vatOere: o.vatOere === null ? null : Number(o.vatOere),
    items: o.items.map((i) => ({
      productName: i.productName,
      quantity: Number(i.quantity),
      unitPriceDkk: Number(i.unitPriceDkk),
      options: optionsOf(i.variantAttributes),
    })),
  };
}

/** A line's variantAttributes (option name → value, written by checkout); {} for lines from before variants. */
function optionsOf(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * What went wrong, as stored and logged (the SMTP server's answer, or the connection error; never the SMTP URL), and
 * whether it is final: a recipient the server refuses permanently (5xx to RCPT TO) will be refused again.
 */
function describeFailure(err: unknown): { error: string; final: boolean } {
  if (!(err instanceof Error)) return { error: String(err).slice(0, STORED_ERROR_CHARS), final: false };
  const given: unknown = Reflect.get(err, 'code');
  const responseCode: unknown = Reflect.get(err, 'responseCode');
  const code = typeof given === 'string' ? given : 'ERROR';
  const final = code === 'EENVELOPE' && typeof responseCode === 'number' && responseCode >= 500;
  return { error: `${code}: ${err.message}`.slice(0, STORED_ERROR_CHARS), final };
}
