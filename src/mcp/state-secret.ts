import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { sharedServerSecret } from '../secrets/server-secret.ts';

/**
 * The key that seals MCP requestState. Every instance must use the same one, since the retry of a round may reach
 * any instance: MCP_STATE_SECRET when configured, else one generated once and kept in the database, sealed.
 */
export async function mcpStateSecret(config: Config, db: Db, secrets: SecretBox): Promise<string> {
  if (config.mcpStateSecret) return config.mcpStateSecret;
  return sharedServerSecret(db, secrets, 'mcp-request-state');
}
