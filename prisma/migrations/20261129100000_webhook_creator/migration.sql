-- Webhooks see only what their creator may read (docs/webhooks.md, "Who receives what"). Each endpoint records the
-- principal whose access its deliveries are checked against; a delivery that principal may no longer read is
-- recorded as skipped, with the reason, instead of being sent.

ALTER TYPE "WebhookDeliveryStatus" ADD VALUE 'skipped';

ALTER TABLE "WebhookEndpoint" ADD COLUMN "creatorKeyId" TEXT, ADD COLUMN "creatorGrantId" TEXT, ADD COLUMN "creatorKeySecretHash" TEXT;
ALTER TABLE "WebhookDelivery" ADD COLUMN "skippedReason" TEXT;

-- Endpoints created before this migration: their creator is the principal of the webhooks.create call in the audit
-- log (the API key, and the OAuth grant when it came through one). Every delivery is still checked against that
-- principal's current access, so an endpoint a settings:write-only key subscribed to orders skips those events.
-- An endpoint without such an entry keeps no creator and skips every delivery until webhooks.update re-saves it.
-- The key's secret as it is now counts as the one that saved the endpoint (the one used then is not known).
UPDATE "WebhookEndpoint" p SET "creatorKeyId" = a."apiKeyId", "creatorGrantId" = a."grantId", "creatorKeySecretHash" = k."secretHash"
FROM (
  SELECT DISTINCT ON ("entityId") "entityId", "apiKeyId", "grantId" FROM "AuditEntry"
  WHERE tool = 'webhooks.create' AND "entityType" = 'webhook_endpoint'
  ORDER BY "entityId", at
) a LEFT JOIN "ApiKey" k ON k.id = a."apiKeyId"
WHERE a."entityId" = p.id;

-- Stored answers of webhooks.create and webhooks.rotate_secret no longer keep the signing secret (a replay says it
-- was shown once); the ones stored before lose it too.
UPDATE "IdempotencyRecord"
SET response = jsonb_set(jsonb_set(response, '{result,secret}', 'null'::jsonb), '{result,secretNote}',
  to_jsonb('The signing secret was shown only in the first answer to this call and is not kept; get a new one with webhooks.rotate_secret.'::text))
WHERE tool IN ('webhooks.create', 'webhooks.rotate_secret') AND "statusCode" = 200 AND response #> '{result,secret}' IS NOT NULL;
