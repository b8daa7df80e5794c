-- The built-in OAuth authorization server: the library's records, its keys, and the grants operators approved.
-- AlterTable
ALTER TABLE "AuditEntry" ADD COLUMN "grantId" TEXT;

-- CreateTable
CREATE TABLE "OAuthRecord" (
    "id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "grantId" TEXT,
    "userCode" TEXT,
    "uid" TEXT,
    "expiresAt" TIMESTAMPTZ(3),
    "consumedAt" TIMESTAMPTZ(3),

    CONSTRAINT "OAuthRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OAuthKey" (
    "id" TEXT NOT NULL,
    "use" TEXT NOT NULL,
    "material" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retiredAt" TIMESTAMPTZ(3),

    CONSTRAINT "OAuthKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OAuthGrant" (
    "id" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientName" TEXT,
    "apiKeyId" TEXT NOT NULL,
    "scopes" TEXT[],
    "resource" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "OAuthGrant_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OAuthRecord_grantId_idx" ON "OAuthRecord"("grantId");

-- CreateIndex
CREATE INDEX "OAuthRecord_uid_idx" ON "OAuthRecord"("uid");

-- CreateIndex
CREATE INDEX "OAuthRecord_expiresAt_idx" ON "OAuthRecord"("expiresAt");

-- CreateIndex
CREATE INDEX "OAuthKey_use_createdAt_idx" ON "OAuthKey"("use", "createdAt");

-- CreateIndex
CREATE INDEX "OAuthGrant_apiKeyId_idx" ON "OAuthGrant"("apiKeyId");
