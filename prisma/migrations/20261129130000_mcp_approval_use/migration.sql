-- The nonces of approved MCP requestStates that have been used (docs/agent-safety.md): the insert that claims one is
-- the single-use check every instance shares. Rows outlive the 5-minute state they belong to by a margin and are
-- then swept. Expand-only: a new table the previous release does not know of.
CREATE TABLE "McpApprovalUse" (
    "nonce" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "McpApprovalUse_pkey" PRIMARY KEY ("nonce")
);

CREATE INDEX "McpApprovalUse_expiresAt_idx" ON "McpApprovalUse"("expiresAt");
