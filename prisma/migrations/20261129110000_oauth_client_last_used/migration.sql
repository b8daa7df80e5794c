-- Registered OAuth clients record when they were last used, so clients unused for 7 days can be removed. Clients
-- registered before this migration count as used now: they get the full 7 days. Expand-only: the previous release
-- neither reads nor writes the column.
ALTER TABLE "OAuthRecord" ADD COLUMN "lastUsedAt" TIMESTAMPTZ(3);

UPDATE "OAuthRecord" SET "lastUsedAt" = CURRENT_TIMESTAMP WHERE "id" LIKE 'Client:%';
