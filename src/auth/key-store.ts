import type { Db } from '../db/client.ts';
import type { Principal } from '../registry/define-tool.ts';
import { isScope, type Scope } from '../registry/scopes.ts';
import { hashesEqual, hashKey, parseKey } from './key-format.ts';

type CachedKey = { hash: string; name: string; scopes: ReadonlySet<Scope>; expiresAt: number | null; fetchedAt: number; lastUsedAt: number };

/**
 * Resolves Bearer keys to principals. A positive lookup is cached for under a second, so an authenticated call
 * costs at most one indexed primary-key lookup per key per second, and a revocation or rotation made by any
 * process (the CLI, another instance) takes effect within 1 s everywhere without cross-process messaging.
 */
export class KeyStore {
  private readonly cache = new Map<string, CachedKey>();
  static readonly CACHE_TTL_MS = 750;
  private static readonly LAST_USED_EVERY_MS = 60_000;
  private static readonly MAX_CACHED = 10_000;

  constructor(private readonly db: Db) {}

  /** Null for malformed, unknown, revoked or expired keys: callers answer all of them with the same 401. */
  async authenticate(key: string, now = Date.now()): Promise<Principal | null> {
    const parsed = parseKey(key);
    if (!parsed) return null;
    const hash = hashKey(key);
    let entry = await this.load(parsed.id, now);
    // A secret that does not match a cached entry may have just been rotated in: look once more in the database.
    if (entry && !hashesEqual(entry.hash, hash) && entry.fetchedAt !== now) entry = await this.load(parsed.id, now, true);
    if (!entry || !hashesEqual(entry.hash, hash)) return null;
    if (entry.expiresAt !== null && entry.expiresAt <= now) return null;
    if (now - entry.lastUsedAt >= KeyStore.LAST_USED_EVERY_MS) this.touch(parsed.id, entry, now);
    return { keyId: parsed.id, name: entry.name, scopes: entry.scopes };
  }

  private async load(id: string, now: number, bypassCache = false): Promise<CachedKey | null> {
    const cached = this.cache.get(id);
    if (cached && !bypassCache && now - cached.fetchedAt < KeyStore.CACHE_TTL_MS) return cached;
    const row = await this.db.apiKey.findUnique({
      where: { id },
      select: { secretHash: true, name: true, scopes: true, revokedAt: true, expiresAt: true, lastUsedAt: true },
    });
    if (!row || row.revokedAt) {
      this.cache.delete(id);
      return null;
    }
    if (this.cache.size >= KeyStore.MAX_CACHED) this.cache.clear();
    const entry: CachedKey = {
      hash: row.secretHash,
      name: row.name,
      scopes: new Set(row.scopes.filter(isScope)),
      expiresAt: row.expiresAt?.getTime() ?? null,
      fetchedAt: now,
      lastUsedAt: cached?.lastUsedAt ?? row.lastUsedAt?.getTime() ?? 0,
    };
    this.cache.set(id, entry);
    return entry;
  }

  private touch(id: string, entry: CachedKey, now: number): void {
    entry.lastUsedAt = now;
    // Bookkeeping only: a failure here must never fail the request it rides on.
    this.db.apiKey.update({ where: { id }, data: { lastUsedAt: new Date(now) } }).catch(() => {});
  }
}
