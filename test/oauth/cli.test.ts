// The CLI's grant and key commands as an operator runs them (a process on the service's database).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { recordGrant } from '../../src/oauth/grant-admin.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { CLI_ENTRY } from '../cli/processes.ts';

const run = promisify(execFile);
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

const cli = (...args: string[]) =>
  run(process.execPath, [CLI_ENTRY, ...args], { env: { ...process.env, DATABASE_URL: database.url } });

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

  it('grants list names the approving key; keys rotate and keys revoke end its grants and say how many', async () => {
    const grant = (id: string, apiKeyId: string) =>
      recordGrant(database.db, {
        id, clientId: 'https://host.example/client.json', clientName: 'Host', apiKeyId,
        scopes: ['features:read'], resource: 'https://shop.example/api/mcp', createdAt: new Date(),
      });
    const rotated = await createKey(database.db, { name: 'rotated-operator', scopes: ['features:read'] });
    const revoked = await createKey(database.db, { name: 'revoked-operator', scopes: ['features:read'] });
    const idle = await createKey(database.db, { name: 'idle-operator', scopes: ['features:read'] });
    await grant('grant-rot-1', rotated.id);
    await grant('grant-rot-2', rotated.id);
    await grant('grant-rev-1', revoked.id);

    const listed = (await cli('grants', 'list')).stdout;
    expect(listed).toMatch(new RegExp(`grant-rot-1 .*${rotated.id} \\(rotated-operator\\)`));
    expect(JSON.parse((await cli('grants', 'list', '--json')).stdout)).toContainEqual(
      expect.objectContaining({ id: 'grant-rev-1', apiKeyId: revoked.id, apiKeyName: 'revoked-operator' }),
    );

    const rotation = JSON.parse((await cli('keys', 'rotate', rotated.id, '--json')).stdout);
    expect(rotation).toMatchObject({ id: rotated.id, name: 'rotated-operator', grantsEnded: 2 });
    expect((await cli('keys', 'revoke', revoked.id)).stdout).toBe(`Revoked ${revoked.id}. 1 OAuth grant it approved ended.\n`);
    expect(JSON.parse((await cli('keys', 'revoke', idle.id, '--json')).stdout)).toEqual({ id: idle.id, revoked: true, grantsEnded: 0 });

    const ended = await database.db.oAuthGrant.findMany({ where: { id: { in: ['grant-rot-1', 'grant-rot-2', 'grant-rev-1'] } } });
    expect(ended.map((g) => g.revokedAt)).not.toContain(null);
    expect(JSON.parse((await cli('grants', 'list', '--json')).stdout)).toEqual([]);
  }, 90_000);

  it('oauth rotate-keys makes a new signing key', async () => {
    const first = JSON.parse((await cli('oauth', 'rotate-keys', '--json')).stdout) as { kid: string };
    const second = JSON.parse((await cli('oauth', 'rotate-keys', '--json')).stdout) as { kid: string };
    expect(second.kid).not.toBe(first.kid);
    const active = await database.db.oAuthKey.findMany({ where: { use: 'sig', retiredAt: null }, orderBy: { createdAt: 'desc' } });
    expect(active.map((k) => k.id)).toEqual([second.kid, first.kid]);
  }, 60_000);
});
