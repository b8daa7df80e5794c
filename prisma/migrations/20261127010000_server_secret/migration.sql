-- Secrets every instance of the service must share, generated once by the first instance that needs one (e.g. the
-- key that seals MCP requestState when MCP_STATE_SECRET is not configured).
CREATE TABLE "ServerSecret" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ServerSecret_pkey" PRIMARY KEY ("name")
);
