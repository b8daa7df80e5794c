-- A checkout session remembers the payment that waits for the buyer (a Stripe PaymentIntent asking for 3-D Secure),
-- so the completion sent again after the buyer's authentication finds it (docs/agentic-checkout.md, "UCP payment").
ALTER TABLE "CheckoutSession" ADD COLUMN "pendingPayment" JSONB;
