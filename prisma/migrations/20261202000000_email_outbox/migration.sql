-- The buyer's e-mails (docs/email.md): an outbox written in the transaction of the order change that causes each
-- e-mail, and sent by the e-mail worker, which claims rows with FOR UPDATE SKIP LOCKED as the webhook workers do.

CREATE TYPE "EmailKind" AS ENUM ('order_confirmation', 'shipping_notice');
CREATE TYPE "EmailStatus" AS ENUM ('pending', 'sent', 'failed', 'skipped');

CREATE TABLE "EmailOutbox" (
  "id" TEXT NOT NULL,
  "orderId" TEXT NOT NULL,
  "kind" "EmailKind" NOT NULL,
  "status" "EmailStatus" NOT NULL DEFAULT 'pending',
  "attempts" INTEGER NOT NULL DEFAULT 0,
  -- When a worker may take it next. Claiming moves it to the end of the claim's lease, so an e-mail whose instance
  -- died mid-send falls due again when the lease runs out.
  "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "lastError" TEXT,
  "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "completedAt" TIMESTAMPTZ(3),
  CONSTRAINT "EmailOutbox_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "EmailOutbox_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- One e-mail of a kind per order: a change that happens twice (paid → flagged_review → paid) writes none the second time.
CREATE UNIQUE INDEX "EmailOutbox_orderId_kind_key" ON "EmailOutbox" ("orderId", "kind");
-- The worker's queue: only pending rows, in the order they fall due.
CREATE INDEX "EmailOutbox_due_idx" ON "EmailOutbox" ("nextAttemptAt") WHERE "status" = 'pending';
