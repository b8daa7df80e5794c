-- Checkout sessions of the agentic checkout protocols (docs/agentic-checkout.md): one table for every protocol, owned
-- by the API key of the platform that created the session. Lines, buyer and fulfillment are kept as the session's own
-- JSON (they change together and are read together); prices are never stored, they are computed on every read.
CREATE TABLE "CheckoutSession" (
  "id"            TEXT NOT NULL,
  "apiKeyId"      TEXT NOT NULL,
  "protocol"      TEXT NOT NULL,
  "status"        TEXT NOT NULL,
  "lines"         JSONB NOT NULL,
  "buyer"         JSONB,
  "fulfillment"   JSONB,
  "discountCodes" TEXT[] DEFAULT ARRAY[]::TEXT[],
  "platform"      JSONB,
  "orderId"       TEXT,
  "expiresAt"     TIMESTAMPTZ(3) NOT NULL,
  "createdAt"     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt"     TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "CheckoutSession_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "CheckoutSession_protocol_check" CHECK ("protocol" IN ('ucp', 'acp')),
  CONSTRAINT "CheckoutSession_status_check" CHECK ("status" IN ('incomplete', 'requires_escalation', 'ready_for_complete', 'complete_in_progress', 'completed', 'canceled'))
);

CREATE INDEX "CheckoutSession_apiKeyId_createdAt_idx" ON "CheckoutSession" ("apiKeyId", "createdAt");
CREATE UNIQUE INDEX "CheckoutSession_orderId_key" ON "CheckoutSession" ("orderId");
-- The sweep's index: only sessions that can still expire.
CREATE INDEX "CheckoutSession_open_expiresAt_idx" ON "CheckoutSession" ("expiresAt") WHERE "status" NOT IN ('completed', 'canceled');

-- An endpoint's wire format: the service's own Standard Webhooks events, or UCP order entities signed per RFC 9421
-- for the platform whose sessions became the orders.
ALTER TABLE "WebhookEndpoint" ADD COLUMN "format" TEXT NOT NULL DEFAULT 'standard';
ALTER TABLE "WebhookEndpoint" ADD CONSTRAINT "WebhookEndpoint_format_check" CHECK ("format" IN ('standard', 'ucp'));

-- The links a checkout shows the buyer; null: the storefront's /pages/terms and /pages/privacy.
ALTER TABLE "ShopSettings" ADD COLUMN "termsUrl" TEXT;
ALTER TABLE "ShopSettings" ADD COLUMN "privacyUrl" TEXT;
