// SECRETS_KEY at start-up (src/server.ts, src/secrets/): required in production, a wrong key stops the start with one
// line, the key of an installation without it is generated once into DATA_DIR (private) and reused, and rows stored
// in plaintext by an earlier release are sealed when the service starts, by two instances starting at once too.
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { loadConfig } from '../../src/config.ts';
import { loadKeys } from '../../src/oauth/keys.ts';
import { openSecretBox } from '../../src/secrets/key-file.ts';
import { newSecretsKey, parseSecretsKey, SecretBox } from '../../src/secrets/secret-box.ts';
import { SetupError } from '../../src/setup-error.ts';
import { cli } from '../cli/processes.ts';
import { runServerUntilExit } from '../deploy/deploy-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/processes.ts';
import { TEST_SECRETS_KEY } from '../helpers/secrets-key.ts';
import { startReceiver, verifiedWith } from '../webhooks/receiver.ts';
import { callTool, opened, storedSecrets, unquoted } from './helpers.ts';

const SERVER = ['--import', 'tsx', 'src/server.ts'];
const testBox = new SecretBox(parseSecretsKey(TEST_SECRETS_KEY)!);

let dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-api-secrets-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function stop(server: ServerProcess) {
  server.child.kill('SIGTERM');
  expect(await server.exited).toEqual({ code: 0, signal: null });
}

const jwksKids = async (port: number) => ((await (await fetch(`http://127.0.0.1:${port}/oauth/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

describe('SECRETS_KEY as a setting', () => {
  it('is required in production: one line naming it, exit code 1', () => {
    expect(runServerUntilExit({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/never', SECRETS_KEY: '' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Invalid setting SECRETS_KEY: required when NODE_ENV=production (it encrypts the secrets kept in the database; make one with openssl rand -base64 32).\n',
    });
  });

  it('takes at least 32 random bytes, base64 or base64url; never repeats a refused value', () => {
    expect(loadConfig({ SECRETS_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=' }).secrets.key).toBeDefined();
    expect(loadConfig({ SECRETS_KEY: newSecretsKey() }).secrets.key).toBeDefined();
    for (const bad of ['too-short-to-be-a-key', 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd', 'not base64 at all, but long enough to pass a length check!!']) {
      expect(() => loadConfig({ SECRETS_KEY: bad })).toThrow(
        new SetupError('Invalid setting SECRETS_KEY: expected at least 32 random bytes in base64 or base64url, e.g. the output of openssl rand -base64 32.'),
      );
    }
    expect(() => loadConfig({ SECRETS_KEY_PREVIOUS: newSecretsKey() })).toThrow(/SECRETS_KEY_PREVIOUS: only together with SECRETS_KEY/);
  });
});

/** A fresh test database for one test, dropped afterwards. */
async function onTestDatabase(work: (database: TestDatabase) => Promise<void>): Promise<void> {
  const database = await createTestDatabase();
  try {
    await work(database);
  } finally {
    await database.drop();
  }
}

describe('a wrong SECRETS_KEY', () => {
  it('stops the start with one line naming SECRETS_KEY, and writes nothing', { timeout: 60_000 }, () => onTestDatabase(async (database) => {
    await loadKeys(database.db, testBox);
    const before = await storedSecrets(database.db);
    const run = runServerUntilExit({ DATABASE_URL: database.url, HOST: '127.0.0.1', PORT: String(await freePort()), SECRETS_KEY: newSecretsKey() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^SECRETS_KEY does not open 2 of the 2 secrets sealed in the database \\(sealed under key id ${testBox.kid}; it is key id [\\w-]{8}\\): ` +
          'use the key they were sealed with, or give that key as SECRETS_KEY_PREVIOUS while rotating \\(docs/operator.md, "Secrets"\\).\\n$',
      ),
    );
    expect(await storedSecrets(database.db)).toEqual(before);
  }));
});

describe('without SECRETS_KEY (development, the embedded default)', () => {
  it('generates DATA_DIR/secrets.key once, readable by its owner only; concurrent starts agree on it', async () => {
    const dataDir = await tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    const boxes = await Promise.all(Array.from({ length: 5 }, () => openSecretBox(config)));
    expect(new Set(boxes.map((b) => b.kid)).size).toBe(1);
    const file = path.join(dataDir, 'secrets.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(parseSecretsKey(await readFile(file, 'utf8'))).not.toBeNull();
    expect((await openSecretBox(config)).kid).toBe(boxes[0]!.kid);

    await chmod(file, 0o644);
    await expect(openSecretBox(config)).rejects.toThrow(new SetupError(`${file} can be read by other users (mode 644): make it private with chmod 600 ${file}.`));
  });

  it('the server generates it on its first start and reuses it on the next; the CLI uses the same key', { timeout: 120_000 }, () => onTestDatabase(async (database) => {
    const dataDir = await tempDir();
    const env = { DATABASE_URL: database.url, REDIS_URL: undefined, NODE_ENV: 'development', SECRETS_KEY: undefined, DATA_DIR: dataDir };
    const first = await startServerProcess(SERVER, env);
    const kids = await jwksKids(first.port);
    await stop(first);
    const box = new SecretBox(parseSecretsKey(await readFile(path.join(dataDir, 'secrets.key'), 'utf8'))!);
    for (const row of await storedSecrets(database.db)) expect(unquoted(row)).toMatch(new RegExp(`^sealed:v1:${box.kid}:`));

    const second = await startServerProcess(SERVER, env);
    expect(await jwksKids(second.port)).toEqual(kids);
    await stop(second);

    const report = await cli({ DATABASE_URL: database.url, NODE_ENV: 'development', SECRETS_KEY: '', DATA_DIR: dataDir }, 'secrets', 'reencrypt', '--json');
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout)).toMatchObject({ kid: box.kid, places: expect.arrayContaining([expect.objectContaining({ stored: 2, sealed: 0 })]) });
  }));
});

describe('rows stored in plaintext by an earlier release', () => {
  it('are sealed when the service starts (two instances at once: each row once), and keep working', { timeout: 120_000 }, () => onTestDatabase(async (database) => {
    const receiver = await startReceiver();
    const { privateKey } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
    const jwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(jwk);
    const legacy = {
      signing: { ...jwk, kid, alg: 'RS256', use: 'sig' },
      cookie: { secret: 'legacy-cookie-secret-0123456789abcdefghijklmno' },
      webhook: 'whsec_bGVnYWN5LXdlYmhvb2stc2lnbmluZy1zZWNyZXQtMDEyMzQ1Njc=',
      previousWebhook: 'whsec_bGVnYWN5LXByZXZpb3VzLXNpZ25pbmctc2VjcmV0LTAxMjM0NTY=',
      state: 'legacy-mcp-state-secret-0123456789abcdefghijklmnop',
    };
    await database.db.oAuthKey.createMany({ data: [{ id: kid, use: 'sig', material: legacy.signing }, { id: 'cookie-legacy', use: 'cookie', material: legacy.cookie }] });
    await database.db.webhookEndpoint.create({
      data: {
        id: 'we_legacy', url: receiver.url, events: ['settings.updated'], secret: legacy.webhook, previousSecret: legacy.previousWebhook,
        previousSecretExpiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    await database.db.serverSecret.create({ data: { name: 'mcp-request-state', value: legacy.state } });
    const operator = await createKey(database.db, { name: 'operator', scopes: ['settings:write', 'settings:read'] });
    const key = operator.key;
    // The endpoint's creator, as the webhook-creator migration records it for endpoints of an earlier release.
    const { secretHash } = await database.db.apiKey.findUniqueOrThrow({ where: { id: operator.id } });
    await database.db.webhookEndpoint.update({ where: { id: 'we_legacy' }, data: { creatorKeyId: operator.id, creatorKeySecretHash: secretHash } });

    const env = { DATABASE_URL: database.url, REDIS_URL: undefined, NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE: '1', WEBHOOK_POLL_INTERVAL: '20ms' };
    const servers = await Promise.all([startServerProcess(SERVER, env), startServerProcess(SERVER, env)]);
    try {
      // Piped, the server's own lines are JSON (src/process-log.ts).
      const sealedByEach = servers.map((s) => Number(/"component":"server","msg":"sealed (\d+) secrets stored in plaintext/.exec(s.output())?.[1] ?? 0));
      expect(sealedByEach.reduce((a, b) => a + b, 0)).toBe(5);

      const rows = await storedSecrets(database.db);
      for (const row of rows) expect(unquoted(row)).toMatch(new RegExp(`^sealed:v1:${testBox.kid}:`));
      // OAuth key material is sealed as the JSON text PostgreSQL held (jsonb's key order and spacing).
      const plaintext = (r: (typeof rows)[number]) => (r.place === 'oauth-key' ? JSON.parse(opened(testBox, r)) : opened(testBox, r));
      expect(Object.fromEntries(rows.map((r) => [`${r.place}:${r.key}`, plaintext(r)]))).toEqual({
        [`oauth-key:${kid}`]: legacy.signing,
        'oauth-key:cookie-legacy': legacy.cookie,
        'webhook-secret:we_legacy': legacy.webhook,
        'webhook-previous-secret:we_legacy': legacy.previousWebhook,
        'server-secret:mcp-request-state': legacy.state,
      });

      for (const server of servers) expect(await jwksKids(server.port)).toEqual([kid]);
      const { eventId } = await callTool<{ eventId: string }>(`http://127.0.0.1:${servers[0]!.port}`, 'webhooks.send_test', { id: 'we_legacy' }, key);
      const [delivery] = await receiver.waitFor(1, (d) => d.id === eventId);
      expect(verifiedWith(delivery!, legacy.webhook)).toBe(true);
      expect(verifiedWith(delivery!, legacy.previousWebhook)).toBe(true);
    } finally {
      await Promise.all(servers.map(stop));
      await receiver.close();
    }
  }));
});
