import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { KeyStore } from '../../src/auth/key-store.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(async () => { await database?.drop(); });

const lastUsed = async (id: string) => (await database.db.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt?.getTime() ?? null;
const settle = async (id: string, expected: number | null) => {
  // lastUsedAt is written fire-and-forget; wait for it rather than for a fixed time.
  for (let i = 0; i < 50 && (await lastUsed(id)) !== expected; i++) await new Promise((r) => setTimeout(r, 20));
  return lastUsed(id);
};

describe('KeyStore', () => {
  it('updates lastUsedAt at most once a minute per key', async () => {
    const { id, key } = await createKey(database.db, { name: 'touch', scopes: ['catalog:read'] });
    const store = new KeyStore(database.db);
    const t0 = Date.UTC(2026, 10, 25, 12, 0, 0);

    expect(await store.authenticate(key, t0)).toMatchObject({ keyId: id });
    expect(await settle(id, t0)).toBe(t0);

    expect(await store.authenticate(key, t0 + 30_000)).not.toBeNull();
    expect(await store.authenticate(key, t0 + 59_000)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 100));
    expect(await lastUsed(id)).toBe(t0);

    expect(await store.authenticate(key, t0 + 60_000)).not.toBeNull();
    expect(await settle(id, t0 + 60_000)).toBe(t0 + 60_000);
  });

  it('stops accepting a revoked key once its cache entry is older than 1 s', async () => {
    const { id, key } = await createKey(database.db, { name: 'revoke', scopes: ['catalog:read'] });
    const store = new KeyStore(database.db);
    const t0 = Date.now();
    expect(await store.authenticate(key, t0)).not.toBeNull();
    await database.db.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    expect(await store.authenticate(key, t0 + KeyStore.CACHE_TTL_MS)).toBeNull();
    expect(KeyStore.CACHE_TTL_MS).toBeLessThan(1_000);
  });
});
