// The services the operator CLI shares with the server run on plain pg (src/db/sql.ts): on a bare pg pool, as the
// CLI runs them, and on the server's client, where inside a write they join the write's transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createKey, listKeys, revokeKey, rotateKey } from '../../src/auth/key-admin.ts';
import { hashKey } from '../../src/auth/key-format.ts';
import { inTransaction } from '../../src/db/client.ts';
import { createPool } from '../../src/db/sql.ts';
import { listGrants, recordGrant } from '../../src/oauth/grant-admin.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  pool = createPool({ connectionString: database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const grantOf = (apiKeyId: string, id: string) => ({
  id, clientId: `client-${id}`, clientName: null, apiKeyId, scopes: ['catalog:read'], resource: 'https://shop.test/api/v1', createdAt: new Date(),
});

describe('key and grant services on a bare pg pool (the CLI)', () => {
  it('create, list, rotate and revoke keys, ending the grants a key approved, with the rows to show for it', async () => {
    const issued = await createKey(pool, { name: 'pool-key', scopes: ['catalog:read', 'orders:read'], expiresAt: new Date('2030-01-01T00:00:00Z') });
    const row = await database.db.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
    expect(row).toMatchObject({ name: 'pool-key', scopes: ['catalog:read', 'orders:read'], secretHash: hashKey(issued.key), revokedAt: null });
    expect(row.expiresAt?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect((await listKeys(pool)).find((k) => k.id === issued.id)).toEqual({
      id: issued.id, name: 'pool-key', scopes: ['catalog:read', 'orders:read'], createdAt: row.createdAt.toISOString(),
      lastUsedAt: null, revokedAt: null, expiresAt: '2030-01-01T00:00:00.000Z',
    });

    await recordGrant(database.db, grantOf(issued.id, `g1-${issued.id}`));
    const rotated = await rotateKey(pool, issued.id);
    expect(rotated).toMatchObject({ id: issued.id, name: 'pool-key', scopes: ['catalog:read', 'orders:read'], grantsEnded: 1 });
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: issued.id } })).secretHash).toBe(hashKey(rotated.key));
    const ended = await database.db.auditEntry.findFirstOrThrow({ where: { tool: 'oauth.revoke', grantId: `g1-${issued.id}` } });
    expect(ended).toMatchObject({
      apiKeyId: issued.id, entityType: 'oauth_grant', entityId: `g1-${issued.id}`,
      before: { clientId: `client-g1-${issued.id}`, scopes: ['catalog:read'], resource: 'https://shop.test/api/v1' },
      meta: { reason: 'the API key that approved it was rotated' },
    });

    await recordGrant(database.db, grantOf(issued.id, `g2-${issued.id}`));
    expect(await revokeKey(pool, issued.id)).toEqual({ grantsEnded: 1 });
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: issued.id } })).revokedAt).toBeInstanceOf(Date);
    expect((await listGrants(pool, { includeRevoked: true })).filter((g) => g.apiKeyId === issued.id).map((g) => g.revokedAt === null)).toEqual([false, false]);
    await expect(revokeKey(pool, issued.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(rotateKey(pool, issued.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('on the server’s client', () => {
  it('inside a write, a revocation is part of the write: the write fails, the key stays active and its grant with it', async () => {
    const issued = await createKey(database.db, { name: 'in-a-write', scopes: ['catalog:read'] });
    await recordGrant(database.db, grantOf(issued.id, `g-${issued.id}`));
    await expect(
      inTransaction(database.db, async () => {
        await revokeKey(database.db, issued.id);
        throw new Error('the write failed after the revocation');
      }),
    ).rejects.toThrow('the write failed after the revocation');
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: issued.id } })).revokedAt).toBeNull();
    expect((await database.db.oAuthGrant.findUniqueOrThrow({ where: { id: `g-${issued.id}` } })).revokedAt).toBeNull();
    expect(await database.db.auditEntry.count({ where: { grantId: `g-${issued.id}`, tool: 'oauth.revoke' } })).toBe(0);
  });
});
