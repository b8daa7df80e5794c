import { queryRows, type Db } from '../db/client.ts';
import { Prisma } from '../generated/prisma/client.ts';

/**
 * Claims the nonce of an approved MCP requestState for its one run: true for the first claim on any instance, false
 * for every later one (the primary key decides, so concurrent claims on several instances agree). The row is kept
 * `keepSeconds`, longer than the state can be valid, and the same statement sweeps rows past theirs.
 */
export async function claimApprovalNonce(db: Db, nonce: string, keepSeconds: number): Promise<boolean> {
  const rows = await queryRows<{ nonce: string }>(db, Prisma.sql`
    WITH swept AS (DELETE FROM "McpApprovalUse" WHERE "expiresAt" < now() AND nonce <> ${nonce})
    INSERT INTO "McpApprovalUse" (nonce, "expiresAt") VALUES (${nonce}, now() + make_interval(secs => ${keepSeconds}))
    ON CONFLICT (nonce) DO NOTHING
    RETURNING nonce`);
  return rows.length === 1;
}
