// What the secrets tests share: the service on a given database and key, listening (OAuth needs real HTTP), with a
// delivery worker; an approved destructive MCP call; and the stored secret columns read raw with SQL.
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Db } from '../../src/db/client.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/events/delivery-worker.ts';
import { serviceSafeFetch } from '../../src/outbound/service-client.ts';
import { openSecretBox } from '../../src/secrets/key-file.ts';
import type { SecretBox } from '../../src/secrets/secret-box.ts';
import { sealedIn } from '../../src/secrets/stored-secrets.ts';
import { productInput } from '../helpers/factories.ts';
import { TEST_SECRETS_KEY } from '../helpers/secrets-key.ts';

export type Instance = { app: FastifyInstance; base: string; config: Config; secrets: SecretBox; worker: DeliveryWorker; close: () => Promise<void> };

/** One instance of the service on `url` (whose client is `db`) with these settings; SECRETS_KEY is the tests' unless given. */
export async function startInstance(url: string, db: Db, env: Record<string, string> = {}): Promise<Instance> {
  const config = loadConfig({
    NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url, OUTBOUND_ALLOW_PRIVATE: '1', WEBHOOK_POLL_INTERVAL: '20ms', SECRETS_KEY: TEST_SECRETS_KEY, ...env,
  });
  const secrets = await openSecretBox(config);
  const app = await buildApp(config, { db, secrets });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const worker = startDeliveryWorker({ db, config, log: app.log, fetch: serviceSafeFetch(config), secrets });
  return {
    app,
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    config,
    secrets,
    worker,
    close: async () => {
      await worker.stop();
      await app.close();
    },
  };
}

/** POST /api/v1/tools/<name> with a Bearer credential; the result, after checking the call succeeded. */
export async function callTool<T>(base: string, name: string, body: unknown, bearer: string): Promise<T> {
  const res = await fetch(`${base}/api/v1/tools/${name}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return (JSON.parse(text) as { result: T }).result;
}

/** Deletes a new product over MCP 2026-07-28 with the person approving: the round trip seals requestState. */
export async function approvedDelete(base: string, key: string, slug: string): Promise<void> {
  await callTool(base, 'products.create', productInput({ slug }), key);
  const client = new Client({ name: 'secrets-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { approve: true } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  try {
    const result = await client.callTool({ name: 'products.delete', arguments: { slug } });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ok: true });
  } finally {
    await client.close();
  }
}

export type StoredSecret = { place: string; key: string; value: string };

/** Every stored secret column as PostgreSQL holds it (a jsonb value as its JSON text). */
export async function storedSecrets(db: Db): Promise<StoredSecret[]> {
  return db.$queryRaw<StoredSecret[]>`
    SELECT 'oauth-key' AS place, id AS key, material::text AS value FROM "OAuthKey"
    UNION ALL SELECT 'webhook-secret', id, secret FROM "WebhookEndpoint"
    UNION ALL SELECT 'webhook-previous-secret', id, "previousSecret" FROM "WebhookEndpoint" WHERE "previousSecret" IS NOT NULL
    UNION ALL SELECT 'server-secret', name, value FROM "ServerSecret"
    ORDER BY 1, 2`;
}

/** The JSON text of a sealed jsonb value is the sealed string in quotes. */
export const unquoted = (s: StoredSecret) => (s.place === 'oauth-key' ? (JSON.parse(s.value) as string) : s.value);

/** The plaintext of a stored secret, opened in the context of its row. */
export function opened(box: SecretBox, s: StoredSecret): string {
  const context = s.place === 'oauth-key' ? sealedIn.oauthKey(s.key) : s.place === 'server-secret' ? sealedIn.serverSecret(s.key) : sealedIn.webhookEndpoint(s.key);
  return box.open(unquoted(s), context);
}
