-- Payments (docs/payments.md): what Stripe refunded of an order (øre), the Checkout Session the buyer pays in, and
-- each Stripe event id once, so a redelivered event changes nothing twice.
ALTER TABLE "Order" ADD COLUMN "refundedDkk" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "Order" ADD COLUMN "stripeCheckoutSessionId" TEXT;

-- Charge, dispute and review events name the payment intent, not the order.
CREATE INDEX "Order_stripePaymentIntentId_idx" ON "Order"("stripePaymentIntentId");

CREATE TABLE "StripeEvent" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "orderId" TEXT,
    "topic" TEXT NOT NULL,
    "stripeCreatedAt" TIMESTAMPTZ(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StripeEvent_pkey" PRIMARY KEY ("id")
);

-- Out-of-order events: the newest applied event of a topic (payment, review, dispute …) for an order is looked up.
CREATE INDEX "StripeEvent_orderId_topic_stripeCreatedAt_idx" ON "StripeEvent"("orderId", "topic", "stripeCreatedAt");
