-- The fulfillment events and adjustments recorded on a UCP checkout's order by PUT /ucp/orders/{id}
-- (docs/agentic-checkout.md, reading 17), kept with the session as its order's expectations are.
ALTER TABLE "CheckoutSession" ADD COLUMN "orderRecord" JSONB;
