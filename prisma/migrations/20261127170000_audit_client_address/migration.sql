-- The client's address (after TRUST_PROXY) on each audit entry. Expand-only: a nullable column that the previous
-- release neither reads nor writes, so it keeps running while this migration is applied (docs/deploy.md).
ALTER TABLE "AuditEntry" ADD COLUMN "clientAddress" TEXT;
