// The e-mail outbox's writes (docs/email.md): each e-mail row is written by the statement, and so in the transaction,
// of the order change that causes it. Rolled back with it, committed with it: an e-mail exists exactly when its
// change happened. The worker (src/email/worker.ts) sends it later.
import type { EmailConfig } from '../config.ts';
import { deferWrite, queryRows, type Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import type { EmailKind } from '../generated/prisma/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { OrderStatus } from '../domain/order-transitions.ts';

/** Outbox ids are also the Message-ID's local part: unique, opaque and the same on every attempt. */
const newEmailId = () => `eml_${newId()}`;

/**
 * The order confirmation of an order placed with manual payment (what to pay and how) or paid before it was placed
 * (placeOrderOf decides), as a CTE deferred to the checkout's one final statement: it adds no statement and no round
 * trip. Only with SMTP_URL set; a card payment taken later has its confirmation written by the move to paid
 * (enqueueStatusEmail). The order row it refers to is inserted by another CTE of the same statement; the foreign key
 * is checked at the statement's end, when it exists.
 */
export async function enqueueCheckoutConfirmation(tx: Tx, email: EmailConfig | undefined, orderId: string): Promise<void> {
  if (email === undefined) return;
  await deferWrite(tx, { name: 'order_email', ctes: Prisma.sql`
    order_email AS (INSERT INTO "EmailOutbox" (id, "orderId", kind) VALUES (${newEmailId()}, ${orderId}, 'order_confirmation'))` });
}

/** The e-mail a move to `status` causes, if any: the confirmation on paid (unless one was sent), the notice on shipped. */
export function emailOfStatus(status: OrderStatus, confirmationSentAt: Date | null): EmailKind | null {
  if (status === 'paid') return confirmationSentAt === null ? 'order_confirmation' : null;
  return status === 'shipped' ? 'shipping_notice' : null;
}

/**
 * Writes the e-mail of an order's status change in the change's transaction. At most one per order and kind
 * (unique index): paid → flagged_review → paid, a Stripe event delivered twice, or a manual order's confirmation
 * already written at checkout write nothing more.
 */
export async function enqueueStatusEmail(tx: Tx, email: EmailConfig | undefined, orderId: string, kind: EmailKind | null): Promise<void> {
  if (email === undefined || kind === null) return;
  // An order without an e-mail address (one placed over UCP without the buyer's) gets none.
  await queryRows(tx, Prisma.sql`
    INSERT INTO "EmailOutbox" (id, "orderId", kind) SELECT ${newEmailId()}, o.id, ${kind}::"EmailKind" FROM "Order" o WHERE o.id = ${orderId} AND o.email <> ''
    ON CONFLICT ("orderId", kind) DO NOTHING`);
}
