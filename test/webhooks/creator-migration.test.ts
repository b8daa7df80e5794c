// Migration 20261129100000_webhook_creator on a database that already has endpoints and stored replays: an endpoint
// takes as creator the principal of its webhooks.create audit entry, one without such an entry keeps none (its
// deliveries are skipped until it is re-saved), and stored answers lose their signing secret.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_MIGRATIONS_DIR, migrate } from '../../src/db/migrate.ts';
import { createEmptyTestDatabase, dropTestDatabase, testDatabaseUrl } from '../helpers/database.ts';

const MIGRATION = '20261129100000_webhook_creator';

let dir: string;
let name: string;
let client: pg.Client;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-api-migrations-'));
  // The migrations before this one: the database as a release without it left it.
  await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true, filter: (src) => !/^\d{14}_/.test(path.basename(src)) || path.basename(src) < MIGRATION });
  name = await createEmptyTestDatabase();
  await migrate(testDatabaseUrl(name), { migrationsDir: dir });
  client = new pg.Client({ connectionString: testDatabaseUrl(name) });
  await client.connect();
}, 60_000);
afterAll(async () => {
  await client?.end();
  await rm(dir, { recursive: true, force: true });
  if (name) await dropTestDatabase(name);
});

it('gives existing endpoints the creator their webhooks.create audit entry names, and takes secrets out of stored replays', async () => {
  const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  await client.query(`
    INSERT INTO "WebhookEndpoint" (id, url, events, secret, "updatedAt") VALUES
      ('we_audited', 'https://hooks.example.com/a', '{order.*}', '${secret}', now()),
      ('we_granted', 'https://hooks.example.com/b', '{*}', '${secret}', now()),
      ('we_unknown', 'https://hooks.example.com/c', '{*}', '${secret}', now());
    INSERT INTO "AuditEntry" (id, "apiKeyId", "grantId", tool, "entityType", "entityId", after) VALUES
      ('a1', 'key_one', NULL, 'webhooks.create', 'webhook_endpoint', 'we_audited', '{}'),
      ('a2', 'key_two', 'grant_two', 'webhooks.create', 'webhook_endpoint', 'we_granted', '{}'),
      ('a3', 'key_three', NULL, 'webhooks.update', 'webhook_endpoint', 'we_granted', '{}');
    INSERT INTO "IdempotencyRecord" (id, "apiKeyId", key, tool, "requestHash", "statusCode", response, "completedAt") VALUES
      ('i1', 'key_one', 'k1', 'webhooks.create', 'h', 200, '{"ok":true,"result":{"endpoint":{"id":"we_audited"},"secret":"${secret}"}}', now()),
      ('i2', 'key_one', 'k2', 'webhooks.create', 'h', 400, '{"code":"invalid_webhook_url","detail":"no"}', now());
  `);

  expect(await migrate(testDatabaseUrl(name))).toContain(MIGRATION);

  const { rows: endpoints } = await client.query(`SELECT id, "creatorKeyId", "creatorGrantId" FROM "WebhookEndpoint" ORDER BY id`);
  expect(endpoints).toEqual([
    { id: 'we_audited', creatorKeyId: 'key_one', creatorGrantId: null },
    { id: 'we_granted', creatorKeyId: 'key_two', creatorGrantId: 'grant_two' },
    { id: 'we_unknown', creatorKeyId: null, creatorGrantId: null },
  ]);
  const { rows: records } = await client.query(`SELECT key, response FROM "IdempotencyRecord" ORDER BY key`);
  expect(records[0].response).toEqual({
    ok: true,
    result: { endpoint: { id: 'we_audited' }, secret: null, secretNote: expect.stringMatching(/shown only in the first answer.*webhooks\.rotate_secret/) },
  });
  expect(JSON.stringify(records)).not.toContain(secret.slice(6));
  expect(records[1].response).toEqual({ code: 'invalid_webhook_url', detail: 'no' });
});
