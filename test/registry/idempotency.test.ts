import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { IDEMPOTENCY_TTL_MS, parseIdempotencyKey, requestHash } from '../../src/registry/idempotency.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { untilBlockedOn } from '../helpers/database.ts';
import { productInput } from '../helpers/factories.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['products:write', 'audit:read']);
});
afterAll(async () => { await t?.close(); });

const product = (slug: string, priceDkk = 1000) => productInput({ slug, priceDkk });
const withKey = (k: string) => ({ headers: { 'idempotency-key': k } });

describe('Idempotency-Key header parsing', () => {
  it('accepts an sf-string and the bare token as the same key', () => {
    expect(parseIdempotencyKey('"abc-123"')).toBe('abc-123');
    expect(parseIdempotencyKey('abc-123')).toBe('abc-123');
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });
  it('refuses empty, over-long and non-ASCII keys', () => {
    for (const bad of ['', '""', 'x'.repeat(256), 'sp ace', 'ünï']) expect(() => parseIdempotencyKey(bad)).toThrow();
  });
  it('fingerprints tool and body independent of key order', () => {
    expect(requestHash('a', { x: 1, y: 2 })).toBe(requestHash('a', { y: 2, x: 1 }));
    expect(requestHash('a', { x: 1 })).not.toBe(requestHash('b', { x: 1 }));
  });
});

describe('POST /api/v1/tools/products.create with Idempotency-Key', () => {
  it('replays the first result for the same key and body, creating one product', async () => {
    const first = await t.call('products.create', product('idem-a'), key, withKey('k-a'));
    const second = await t.call('products.create', product('idem-a'), key, withKey('"k-a"'));
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json()).toEqual(first.json());
    expect(await t.db.product.count({ where: { slug: 'idem-a' } })).toBe(1);
    expect(await t.db.auditEntry.count({ where: { tool: 'products.create', entityId: first.json().result.id } })).toBe(1);
  });

  it('refuses the same key with another body (422 idempotency_key_reused)', async () => {
    await t.call('products.create', product('idem-b'), key, withKey('k-b'));
    const res = await t.call('products.create', product('idem-b', 2000), key, withKey('k-b'));
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('idempotency_key_reused');
    expect((await t.db.product.findUniqueOrThrow({ where: { slug: 'idem-b' } })).priceDkk).toBe(1000n);
  });

  it('creates exactly one entity for 10 concurrent identical calls', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => t.call('products.create', product('idem-c'), key, withKey('k-c'))));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().code).toBe('idempotency_in_progress');
    expect(await t.db.product.count({ where: { slug: 'idem-c' } })).toBe(1);
    expect(await t.db.idempotencyRecord.count({ where: { key: 'k-c' } })).toBe(1);
  });

  it('runs the call again once its key has expired (24 h), storing the new outcome in place of the old', async () => {
    const first = await t.call('products.create', product('idem-old'), key, withKey('k-old'));
    expect(first.statusCode).toBe(200);
    const expired = new Date(Date.now() - IDEMPOTENCY_TTL_MS - 60_000);
    await t.db.idempotencyRecord.updateMany({ where: { key: 'k-old' }, data: { createdAt: expired } });
    // Same key, another body: past the TTL this is a new call, not a reuse.
    const again = await t.call('products.create', product('idem-new'), key, withKey('k-old'));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await t.db.product.count({ where: { slug: 'idem-new' } })).toBe(1);
    const record = await t.db.idempotencyRecord.findFirstOrThrow({ where: { key: 'k-old' } });
    expect(record.createdAt.getTime()).toBeGreaterThan(expired.getTime());
    expect(record.response).toEqual(again.json().ok ? { ok: true, result: again.json().result } : undefined);
    // And that outcome is what the key replays now.
    const replayed = await t.call('products.create', product('idem-new'), key, withKey('k-old'));
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual(again.json());
  });

  it('replays a call with the same key that committed while this one ran, keeping nothing of this one', async () => {
    const { key: raceKey, id: keyId } = await createKey(t.db, { name: 'racer', scopes: ['products:write'] });
    const body = product('idem-race');
    const winner = { ok: true, result: { id: 'winner-id', slug: 'idem-race' } };
    const other = new pg.Client({ connectionString: t.url });
    await other.connect();
    try {
      // The other call's outcome, not yet committed: this call's replay check does not see it, and its claim (an
      // advisory lock the other does not hold here) succeeds, so it runs and then stores its own outcome.
      await other.query('BEGIN');
      await other.query(
        `INSERT INTO "IdempotencyRecord" (id, "apiKeyId", key, tool, "requestHash", "statusCode", response, "completedAt")
         VALUES ('rec-race', $1, 'k-race', 'products.create', $2, 200, $3, now())`,
        [keyId, requestHash('products.create', body), JSON.stringify(winner)],
      );
      const call = t.call('products.create', body, raceKey, withKey('k-race'));
      // Storing its outcome waits for the other's row; then the other commits first.
      await untilBlockedOn(other, 'the call');
      await other.query('COMMIT');
      const res = await call;
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(res.json().result).toEqual(winner.result);
      expect(await t.db.product.count({ where: { slug: 'idem-race' } })).toBe(0);
      expect(await t.db.auditEntry.count({ where: { apiKeyId: keyId } })).toBe(0);
      expect(await t.db.idempotencyRecord.count({ where: { apiKeyId: keyId, key: 'k-race' } })).toBe(1);
    } finally {
      await other.end();
    }
  });

  it('claims a key only when no live record of it committed before the lock was taken (40001: run again, replay)', async () => {
    // The window: a call with this key commits after this one's replay check and releases the lock before this one
    // claims it. The claim then sees that record (a statement of its own inside the function), so the handler never
    // runs on the rows the other call left; found in the 10-concurrent test above as a 409 `conflict` on the slug.
    const { id: keyId } = await createKey(t.db, { name: 'claimer', scopes: ['products:write'] });
    const claim = (idemKey: string) =>
      t.db.$transaction((tx) => tx.$queryRaw`SELECT agent_api_claim_key(${`${keyId}:${idemKey}`}, ${keyId}, ${idemKey}, ${new Date(Date.now() - IDEMPOTENCY_TTL_MS)})`);
    await expect(claim('k-window')).resolves.toEqual([{ agent_api_claim_key: true }]);
    await t.db.idempotencyRecord.create({
      data: { apiKeyId: keyId, key: 'k-window', tool: 'products.create', requestHash: 'h', statusCode: 200, response: {}, completedAt: new Date() },
    });
    await expect(claim('k-window')).rejects.toThrow(/committed since this one looked/);
    await t.db.idempotencyRecord.updateMany({ where: { apiKeyId: keyId, key: 'k-window' }, data: { createdAt: new Date(Date.now() - IDEMPOTENCY_TTL_MS - 1000) } });
    await expect(claim('k-window')).resolves.toEqual([{ agent_api_claim_key: true }]);
  });

  it('replays a domain error that happened after execution began', async () => {
    const first = await t.call('products.update', { slug: 'idem-later', patch: { stock: 5 } }, key, withKey('k-d'));
    expect(first.statusCode).toBe(404);
    await t.call('products.create', product('idem-later'), key);
    const retry = await t.call('products.update', { slug: 'idem-later', patch: { stock: 5 } }, key, withKey('k-d'));
    expect(retry.statusCode).toBe(404);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect((await t.db.product.findUniqueOrThrow({ where: { slug: 'idem-later' } })).stock).toBe(1n);
  });

  it('answers 409 while another call holds the key, remembering nothing of the refused call', async () => {
    const { key: heldKey, id: keyId } = await createKey(t.db, { name: 'holder', scopes: ['products:write'] });
    const holder = new pg.Client({ connectionString: t.url });
    await holder.connect();
    try {
      // What a running call with this key holds: its claim's transaction-scoped advisory lock.
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${keyId}:k-held`]);
      // A call that would succeed, and one that would fail with a domain error (404) after execution began: both
      // refused before anything of theirs counts.
      expect((await t.call('products.create', product('idem-held'), heldKey, withKey('k-held'))).statusCode).toBe(409);
      const refused = await t.call('products.update', { slug: 'idem-held', patch: { stock: 5 } }, heldKey, withKey('k-held'));
      expect(refused.statusCode).toBe(409);
      expect(refused.json().code).toBe('idempotency_in_progress');
      expect(await t.db.idempotencyRecord.count({ where: { apiKeyId: keyId } })).toBe(0);
      expect(await t.db.product.count({ where: { slug: 'idem-held' } })).toBe(0);
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    // Released: the same key runs the call (the 409 was not stored as its outcome).
    expect((await t.call('products.create', product('idem-held'), heldKey, withKey('k-held'))).statusCode).toBe(200);
    expect(await t.db.product.count({ where: { slug: 'idem-held' } })).toBe(1);
  });

  it('does not consume the key on a dry run or a validation failure', async () => {
    const dry = await t.call('products.create', { ...product('idem-e'), dryRun: true }, key, withKey('k-e'));
    expect(dry.json().dryRun).toBe(true);
    const invalid = await t.call('products.create', { ...product('idem-e'), priceDkk: -1 }, key, withKey('k-e'));
    expect(invalid.statusCode).toBe(400);
    const real = await t.call('products.create', product('idem-e'), key, withKey('k-e'));
    expect(real.statusCode).toBe(200);
    expect(real.headers['idempotent-replayed']).toBeUndefined();
    expect(await t.db.product.count({ where: { slug: 'idem-e' } })).toBe(1);
  });

  it('refuses a key over 255 characters and duplicated headers with 400', async () => {
    const long = await t.call('products.create', product('idem-f'), key, withKey('x'.repeat(256)));
    expect(long.statusCode).toBe(400);
    expect(long.json().code).toBe('invalid_idempotency_key');
    const dup = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tools/products.create',
      // light-my-request sends an array value as repeated headers
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': ['a', 'b'] },
      payload: JSON.stringify(product('idem-f')),
    });
    expect(dup.statusCode).toBe(400);
    expect(await t.db.product.count({ where: { slug: 'idem-f' } })).toBe(0);
  });

  it('scopes keys to the API key: another key may reuse the same Idempotency-Key', async () => {
    const other = await t.key(['products:write']);
    await t.call('products.create', product('idem-g'), key, withKey('shared'));
    const res = await t.call('products.create', product('idem-h'), other, withKey('shared'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });
});
