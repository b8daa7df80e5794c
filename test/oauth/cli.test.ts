// The CLI's grant and key commands as an operator runs them (a process on the service's database).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { recordGrant } from '../../src/oauth/grant-admin.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const run = promisify(execFile);
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', ...args], { env: { ...process.env, DATABASE_URL: database.url } });

describe('CLI', () => {
  it('grants list --json shows each grant, grants revoke ends it', async () => {
    const key = await createKey(database.db, { name: 'operator', scopes: ['features:read'] });
    await recordGrant(database.db, {
      id: 'grant-cli-1', clientId: 'https://host.example/client.json', clientName: 'Host', apiKeyId: key.id,
      scopes: ['features:read'], resource: 'https://shop.example/api/mcp', createdAt: new Date(),
    });
    const listed = JSON.parse((await cli('grants', 'list', '--json')).stdout);
    expect(listed).toMatchObject([{ id: 'grant-cli-1', clientName: 'Host', apiKeyId: key.id, scopes: ['features:read'], lastUsedAt: null }]);
    expect((await cli('grants', 'revoke', 'grant-cli-1')).stdout).toContain('Revoked grant grant-cli-1');
    expect(JSON.parse((await cli('grants', 'list', '--json')).stdout)).toEqual([]);
    await expect(cli('grants', 'revoke', 'grant-cli-1')).rejects.toMatchObject({ code: 3 });
  }, 90_000);

  it('oauth rotate-keys makes a new signing key', async () => {
    const first = JSON.parse((await cli('oauth', 'rotate-keys', '--json')).stdout) as { kid: string };
    const second = JSON.parse((await cli('oauth', 'rotate-keys', '--json')).stdout) as { kid: string };
    expect(second.kid).not.toBe(first.kid);
    const active = await database.db.oAuthKey.findMany({ where: { use: 'sig', retiredAt: null }, orderBy: { createdAt: 'desc' } });
    expect(active.map((k) => k.id)).toEqual([second.kid, first.kid]);
  }, 60_000);
});
