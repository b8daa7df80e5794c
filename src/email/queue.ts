// The e-mail outbox's queue SQL (docs/email.md, "Delivery"): claiming due e-mails and recording what became of them.
// The same approach as the webhook deliveries (src/events/delivery-queue.ts): claims with FOR UPDATE SKIP LOCKED and
// a lease, so instances never take the same row and a row held by an instance that died falls due again.
import { queryRows, type Db } from '../db/client.ts';
import { dueRows, leaseEnd } from '../db/due-rows.ts';
import { Prisma, type EmailKind } from '../generated/prisma/client.ts';

export type ClaimedEmail = { id: string; orderId: string; kind: EmailKind; attempts: number };

/**
 * Takes up to `limit` due e-mails and moves each one's next attempt to the end of the lease: it is this instance's
 * until then, and any instance's again if this one dies holding it (the one way an e-mail can go out twice: see
 * markSent).
 */
export function claimEmails(db: Db, limit: number, leaseMs: number): Promise<ClaimedEmail[]> {
  return queryRows<ClaimedEmail>(db, Prisma.sql`
    WITH ${dueRows('EmailOutbox', limit)}
    UPDATE "EmailOutbox" e SET "nextAttemptAt" = ${leaseEnd(leaseMs)}
    FROM due WHERE e.id = due.id
    RETURNING e.id, e."orderId", e.kind, e.attempts`);
}

/**
 * Records that the SMTP server accepted the e-mail, right after it did, one statement per e-mail (not batched: the
 * time between the server's acceptance and this record is the window in which a crash sends the e-mail again once
 * its lease ends). A confirmation also stamps the order's confirmationEmailSentAt, in the same statement.
 */
export async function markSent(db: Db, email: ClaimedEmail): Promise<void> {
  await queryRows(db, Prisma.sql`
    WITH sent AS (
      UPDATE "EmailOutbox" SET status = 'sent', attempts = attempts + 1, "lastError" = NULL, "completedAt" = now()
      WHERE id = ${email.id} AND status = 'pending'
      RETURNING "orderId", kind
    )
    UPDATE "Order" o SET "confirmationEmailSentAt" = now(), "updatedAt" = now()
    FROM sent WHERE o.id = sent."orderId" AND sent.kind = 'order_confirmation' AND o."confirmationEmailSentAt" IS NULL`);
}

/** A failed attempt: tried again after `retryInMs`, or failed for good when that is null. */
export async function markFailed(db: Db, email: ClaimedEmail, error: string, retryInMs: number | null): Promise<void> {
  await queryRows(db, Prisma.sql`
    UPDATE "EmailOutbox" SET attempts = attempts + 1, "lastError" = ${error},
      status = ${retryInMs === null ? 'failed' : 'pending'}::"EmailStatus",
      "nextAttemptAt" = now() + ${retryInMs ?? 0}::float8 * interval '1 millisecond',
      "completedAt" = ${retryInMs === null ? Prisma.sql`now()` : Prisma.sql`NULL`}
    WHERE id = ${email.id} AND status = 'pending'`);
}

/** Not sent, and never will be (the order was cancelled first): `reason` is kept as its lastError. */
export async function markSkipped(db: Db, email: ClaimedEmail, reason: string): Promise<void> {
  await queryRows(db, Prisma.sql`
    UPDATE "EmailOutbox" SET status = 'skipped', "lastError" = ${reason}, "completedAt" = now()
    WHERE id = ${email.id} AND status = 'pending'`);
}
