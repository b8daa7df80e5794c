-- Events and webhooks (docs/webhooks.md). Events are written by the write that causes them, in its transaction
-- (the transactional outbox); each event is fanned out to the subscribed endpoints in the same statement, as one
-- delivery row per endpoint that the delivery workers claim with FOR UPDATE SKIP LOCKED.

CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed');

CREATE TABLE "WebhookEndpoint" (
  "id" TEXT NOT NULL,
  "url" TEXT NOT NULL,
  "description" TEXT,
  "events" TEXT[] NOT NULL,
  "enabled" BOOLEAN NOT NULL DEFAULT true,
  "disabledReason" TEXT,
  "secret" TEXT NOT NULL,
  "previousSecret" TEXT,
  "previousSecretExpiresAt" TIMESTAMPTZ(3),
  "failingSince" TIMESTAMPTZ(3),
  "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id")
);

-- The last sequence number given to an entity's events: one row per entity that has emitted any.
-- "entity" is "<entityType>:<entityId>".
CREATE TABLE "EntityEventSequence" (
  "entity" TEXT NOT NULL,
  "last" BIGINT NOT NULL,
  CONSTRAINT "EntityEventSequence_pkey" PRIMARY KEY ("entity")
);

CREATE TABLE "WebhookEvent" (
  "id" TEXT NOT NULL,
  "type" TEXT NOT NULL,
  "entityType" TEXT NOT NULL,
  "entityId" TEXT NOT NULL,
  "sequence" BIGINT NOT NULL,
  -- json, not jsonb: the payload is sent with its keys in the order they were written.
  "data" JSON NOT NULL,
  "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "WebhookEvent_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "WebhookEvent_createdAt_idx" ON "WebhookEvent" ("createdAt");

CREATE TABLE "WebhookDelivery" (
  "id" TEXT NOT NULL,
  "eventId" TEXT NOT NULL,
  "endpointId" TEXT NOT NULL,
  "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
  "attempts" INTEGER NOT NULL DEFAULT 0,
  -- When a worker may take it next. Claiming moves it to the end of the claim's lease, so a delivery whose
  -- instance died mid-send falls due again when the lease runs out.
  "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "completedAt" TIMESTAMPTZ(3),
  CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "WebhookDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "WebhookEvent"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "WebhookDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- The workers' queue: only pending rows, in the order they fall due.
CREATE INDEX "WebhookDelivery_due_idx" ON "WebhookDelivery" ("nextAttemptAt") WHERE "status" = 'pending';
CREATE INDEX "WebhookDelivery_endpointId_createdAt_id_idx" ON "WebhookDelivery" ("endpointId", "createdAt", "id");
CREATE INDEX "WebhookDelivery_eventId_idx" ON "WebhookDelivery" ("eventId");

CREATE TABLE "WebhookAttempt" (
  "id" TEXT NOT NULL,
  "deliveryId" TEXT NOT NULL,
  "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "statusCode" INTEGER,
  "latencyMs" INTEGER NOT NULL,
  "error" TEXT,
  -- At most 1 KB of the endpoint's answer.
  "responseBody" TEXT,
  CONSTRAINT "WebhookAttempt_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "WebhookAttempt_deliveryId_idx" ON "WebhookAttempt" ("deliveryId");
