// Secrets at rest (docs/operator.md, "Secrets"): the OAuth keys, webhook signing secrets and the MCP state secret are
// sealed in their rows with SECRETS_KEY, keep working, open only in the row they were sealed for, and survive a
// rotation of SECRETS_KEY with `secrets reencrypt`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealStoredSecrets } from '../../src/secrets/stored-secrets.ts';
import { mcpStateSecret } from '../../src/mcp/state-secret.ts';
import { loadKeys } from '../../src/oauth/keys.ts';
import { newSecretsKey, SecretBoxError } from '../../src/secrets/secret-box.ts';
import { cli } from '../cli/processes.ts';
import { createKey } from '../../src/auth/key-admin.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { obtainTokens, registerClient } from '../oauth/mcp-host.ts';
import { startReceiver, verifiedWith, type Receiver } from '../webhooks/receiver.ts';
import { approvedDelete, callTool, opened, startInstance, storedSecrets, unquoted, type Instance } from './helpers.ts';

type Created = { endpoint: { id: string }; secret: string };

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver?.close());

/** A webhook.test delivery to `endpointId` through `instance`, as the receiver got it. */
async function testDelivery(instance: Instance, key: string, endpointId: string) {
  const { eventId } = await callTool<{ eventId: string }>(instance.base, 'webhooks.send_test', { id: endpointId }, key);
  return (await receiver.waitFor(1, (d) => d.id === eventId))[0]!;
}

/** The secrets every part of the service keeps: a webhook endpoint (created, then rotated), OAuth keys, the MCP state secret. */
async function makeSecrets(instance: Instance, key: string) {
  const created = await callTool<Created>(instance.base, 'webhooks.create', { url: receiver.url, events: ['settings.updated'] }, key);
  const rotated = await callTool<Created>(instance.base, 'webhooks.rotate_secret', { id: created.endpoint.id }, key);
  const clientId = await registerClient(instance.base);
  const tokens = await obtainTokens(instance.base, { clientId, operatorKey: key, resource: `${instance.base}/api/v1`, scope: 'features:read' });
  await approvedDelete(instance.base, key, `sealed-${Date.now()}`);
  return { endpointId: created.endpoint.id, oldSecret: created.secret, newSecret: rotated.secret, clientId, tokens };
}

const jwksKids = async (base: string) => ((await (await fetch(`${base}/oauth/jwks`)).json()) as { keys: { kid: string; n: string }[] }).keys;

describe('secrets in the database', () => {
  let database: TestDatabase;
  let instance: Instance;
  let key: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    instance = await startInstance(database.url, database.db);
    key = (await createKey(database.db, { name: 'operator', scopes: ['settings:write', 'settings:read', 'products:write', 'features:read'] })).key;
  });
  afterAll(async () => {
    await instance?.close();
    await database?.drop();
  });

  it('are sealed in every row that holds one, and everything that uses them works', async () => {
    const made = await makeSecrets(instance, key);

    // A delivery signs with the new secret and, during the overlap, the old one: both verify with standardwebhooks.
    const delivery = await testDelivery(instance, key, made.endpointId);
    expect(verifiedWith(delivery, made.newSecret)).toBe(true);
    expect(verifiedWith(delivery, made.oldSecret)).toBe(true);
    // The OAuth token works.
    await callTool(instance.base, 'features.list', {}, made.tokens.access_token);

    const rows = await storedSecrets(database.db);
    expect(rows.map((r) => r.place).sort()).toEqual(['oauth-key', 'oauth-key', 'server-secret', 'webhook-previous-secret', 'webhook-secret']);
    for (const row of rows) expect(unquoted(row), row.place).toMatch(new RegExp(`^sealed:v1:${instance.secrets.kid}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`));
    const raw = JSON.stringify(rows);
    for (const secret of [made.oldSecret, made.newSecret]) expect(raw).not.toContain(secret.slice('whsec_'.length));
    // The signing key's public modulus is part of the sealed material too; nothing of the private key shows.
    const [published] = await jwksKids(instance.base);
    expect(raw).not.toContain(published!.n.slice(0, 40));
    expect(raw).not.toMatch(/"(d|p|q|dp|dq|qi|secret)"/);
  });

  it('open only in their own row: a value moved to another row, or written in plaintext, is refused, not used', async () => {
    const a = await callTool<Created>(instance.base, 'webhooks.create', { url: receiver.url, events: ['settings.updated'] }, key);
    const b = await callTool<Created>(instance.base, 'webhooks.create', { url: receiver.url, events: ['settings.updated'] }, key);
    const attemptsOf = async (eventId: string) => {
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
        const attempts = await database.db.webhookAttempt.findMany({ where: { delivery: { eventId } } });
        if (attempts.length > 0) return attempts;
      }
      throw new Error(`no attempt for ${eventId}`);
    };
    for (const stored of [(await database.db.webhookEndpoint.findUniqueOrThrow({ where: { id: a.endpoint.id } })).secret, a.secret]) {
      await database.db.$executeRaw`UPDATE "WebhookEndpoint" SET secret = ${stored} WHERE id = ${b.endpoint.id}`;
      const { eventId } = await callTool<{ eventId: string }>(instance.base, 'webhooks.send_test', { id: b.endpoint.id }, key);
      const [attempt] = await attemptsOf(eventId);
      expect(attempt).toMatchObject({ statusCode: null, error: 'secret: the signing secret does not open with SECRETS_KEY' });
      expect(receiver.deliveries.some((d) => d.id === eventId)).toBe(false);
    }
  });

  it('a plaintext OAuth key or MCP state secret (written without SECRETS_KEY) is refused, not used', async () => {
    const other = await createTestDatabase();
    try {
      await other.db.oAuthKey.createMany({ data: [{ id: 'planted', use: 'sig', material: { kty: 'RSA' } }, { id: 'cookie-planted', use: 'cookie', material: { secret: 'x'.repeat(43) } }] });
      await other.db.serverSecret.create({ data: { name: 'mcp-request-state', value: 'y'.repeat(43) } });
      await expect(loadKeys(other.db, instance.secrets)).rejects.toThrow(/^the secret of oauth-key:(cookie-)?planted is not sealed$/);
      await expect(mcpStateSecret(instance.config, other.db, instance.secrets)).rejects.toThrow(new SecretBoxError('the secret of server-secret:mcp-request-state is not sealed'));
    } finally {
      await other.drop();
    }
  });
});

describe('rotating SECRETS_KEY', () => {
  const keyA = newSecretsKey();
  const keyB = newSecretsKey();
  let database: TestDatabase;
  let key: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    key = (await createKey(database.db, { name: 'operator', scopes: ['settings:write', 'settings:read', 'products:write', 'features:read'] })).key;
  });
  afterAll(async () => database?.drop());

  const reencrypt = (env: Record<string, string>) => cli({ DATABASE_URL: database.url, ...env }, 'secrets', 'reencrypt', '--json');

  it('key A → B with A as previous → secrets reencrypt → B alone opens everything A sealed', { timeout: 120_000 }, async () => {
    const underA = await startInstance(database.url, database.db, { SECRETS_KEY: keyA });
    const made = await makeSecrets(underA, key);
    const kids = await jwksKids(underA.base);
    const boxA = underA.secrets;
    const plaintexts = (await storedSecrets(database.db)).map((r) => opened(boxA, r));
    await underA.close();

    // B alone cannot open what A sealed: the command changes nothing and says which setting to fix.
    const before = await storedSecrets(database.db);
    const refused = await reencrypt({ SECRETS_KEY: keyB });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: SECRETS_KEY does not open 5 of the 5 secrets sealed in the database \(sealed under key id [\w-]{8}; it is key id [\w-]{8}\): .*SECRETS_KEY_PREVIOUS/);
    expect(await storedSecrets(database.db)).toEqual(before);

    const done = await reencrypt({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA });
    expect(done.code, done.stderr).toBe(0);
    const report = JSON.parse(done.stdout) as { kid: string; places: { name: string; stored: number; sealed: number; changedMeanwhile: number }[] };
    expect(report.places).toEqual([
      { name: 'OAuth signing keys and cookie secrets', stored: 2, sealed: 2, changedMeanwhile: 0 },
      { name: 'webhook signing secrets', stored: 1, sealed: 1, changedMeanwhile: 0 },
      { name: 'previous webhook signing secrets', stored: 1, sealed: 1, changedMeanwhile: 0 },
      { name: 'server secrets', stored: 1, sealed: 1, changedMeanwhile: 0 },
    ]);
    const again = JSON.parse((await reencrypt({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA })).stdout) as typeof report;
    expect(again.places.map((p) => p.sealed)).toEqual([0, 0, 0, 0]);

    // A dropped: B alone passes the start-up check and opens every secret to what A had sealed.
    const underB = await startInstance(database.url, database.db, { SECRETS_KEY: keyB });
    try {
      expect(underB.secrets.kid).toBe(report.kid);
      expect(await sealStoredSecrets(database.db, underB.secrets, 'plaintext')).toEqual(report.places.map((p) => ({ ...p, sealed: 0 })));
      const rows = await storedSecrets(database.db);
      for (const row of rows) expect(unquoted(row)).toMatch(new RegExp(`^sealed:v1:${report.kid}:`));
      expect(rows.map((r) => opened(underB.secrets, r))).toEqual(plaintexts);

      expect(await jwksKids(underB.base)).toEqual(kids);
      const delivery = await testDelivery(underB, key, made.endpointId);
      expect(verifiedWith(delivery, made.newSecret)).toBe(true);
      expect(verifiedWith(delivery, made.oldSecret)).toBe(true);
      // (A token issued by the first instance is bound to its URL; this instance listens on another port.)
      const tokens = await obtainTokens(underB.base, { clientId: made.clientId, operatorKey: key, resource: `${underB.base}/api/v1`, scope: 'features:read' });
      await callTool(underB.base, 'features.list', {}, tokens.access_token);
      await approvedDelete(underB.base, key, `after-rotation-${Date.now()}`);
    } finally {
      await underB.close();
    }
  });
});
