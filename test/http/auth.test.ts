// Keys and scopes (docs/contract.md; docs/robustness.md rows 17–21): 401 vs 403 for every protected
// tool of the registry, garbage keys refused before any database query, revocation and rotation within 1 s.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, parseScopes, revokeKey, rotateKey } from '../../src/auth/key-admin.ts';
import { generateKey, generateKeyId, hashKey, hashesEqual, parseKey } from '../../src/auth/key-format.ts';
import { KeyStore } from '../../src/auth/key-store.ts';
import { AppError } from '../../src/errors.ts';
import { SCOPES, type Scope } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { sleep } from '../helpers/calls.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let queries = 0;
beforeAll(async () => {
  t = await createTestApp({ onQuery: () => { queries++; } });
});
afterAll(async () => {
  await t?.close();
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const withoutInstance = (body: Record<string, unknown>) => ({ ...body, instance: undefined });

/** Calls products.create with raw Authorization header value(s). */
const withAuthorization = (value: string | string[]) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/tools/products.create',
    headers: { 'content-type': 'application/json', authorization: value as string },
    payload: '{}',
  });

/** Waits until `ms` have passed since `since` (a Date.now() value). */
const sleepUntil = (since: number, ms: number) => sleep(Math.max(0, since + ms - Date.now()));

const PROTECTED = TOOLS.filter((tool) => !tool.anonymous);
const ANONYMOUS = TOOLS.filter((tool) => tool.anonymous);

describe('keys refused before any database query', () => {
  it('malformed, bad-checksum, empty, Basic and doubled Authorization headers are 401 with zero queries', async () => {
    const good = await t.key();
    const other = await t.key();
    const badChecksum = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    const headers: (string | string[])[] = [
      'Bearer not-a-key',
      `Bearer ${badChecksum}`,
      `Bearer ${good.replace(/^aak_/, 'sfk_')}`,
      `Bearer ${good}x`,
      `Bearer ${good.slice(0, -1)}`,
      'Bearer ',
      'Bearer',
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      `Basic ${good}`,
      good,
      `Bearer  ${good}`,
      [`Bearer ${good}`, `Bearer ${other}`],
    ];
    await sleep(50);
    queries = 0;
    for (const h of headers) {
      const res = await withAuthorization(h);
      const body = expectProblem(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate'], JSON.stringify(h)).toMatch(/^Bearer /);
      expect(body.detail).not.toContain(good);
    }
    expect(queries).toBe(0);
  });

  it('the same key sent once is accepted (the doubled-header refusal is about the duplicate)', async () => {
    const good = await t.key(['products:write']);
    const res = await withAuthorization(`Bearer ${good}`);
    expectProblem(res, 400, 'invalid_request');
  });
});

describe('401 vs 403 for every protected tool of the registry', () => {
  const withoutScope = new Map<Scope, string>();
  const onlyScope = new Map<Scope, string>();
  beforeAll(async () => {
    for (const scope of new Set(PROTECTED.map((tool) => tool.scope))) {
      withoutScope.set(scope, await t.key(SCOPES.filter((s) => s !== scope)));
      onlyScope.set(scope, await t.key([scope]));
    }
  });

  it('the registry has protected tools, and every write tool is protected', () => {
    expect(PROTECTED.length).toBeGreaterThanOrEqual(8);
    for (const tool of TOOLS) if (tool.write) expect(tool.anonymous, tool.name).toBe(false);
  });

  it.each(PROTECTED.map((tool) => [tool.name, tool] as const))('POST /api/v1/tools/%s without a key is 401, without its scope 403', async (_name, tool) => {
    const anon = await t.call(tool.name, {});
    const p401 = expectProblem(anon, 401, 'unauthorized');
    expect(anon.headers['www-authenticate']).toMatch(/^Bearer realm="[^"]+"/);
    expect(String(p401.detail)).toContain(tool.scope);

    const denied = await t.call(tool.name, {}, withoutScope.get(tool.scope));
    const p403 = expectProblem(denied, 403, 'insufficient_scope');
    expect(denied.headers['www-authenticate']).toBe(
      `Bearer realm="agent-api", error="insufficient_scope", scope="${tool.scope}", resource_metadata="http://localhost:80/.well-known/oauth-protected-resource/api/v1"`,
    );
    expect(String(p403.detail)).toContain(tool.scope);

    // With exactly its scope the call gets past authorization (an empty body then fails validation or succeeds).
    const allowed = await t.call(tool.name, {}, onlyScope.get(tool.scope));
    expect([401, 403], `${tool.name}: ${allowed.body}`).not.toContain(allowed.statusCode);
  });

  it('a key with one scope gets 403 (never 401) on a tool of another scope', async () => {
    const readOnly = await t.key(['catalog:read']);
    for (const tool of PROTECTED) {
      expectProblem(await t.call(tool.name, {}, readOnly), 403, 'insufficient_scope');
    }
  });

  it.each(ANONYMOUS.map((tool) => [tool.name, tool] as const))('POST /api/v1/tools/%s works without a key', async (_name, tool) => {
    const res = await t.call(tool.name, {});
    expect([401, 403], res.body).not.toContain(res.statusCode);
  });

  it('the anonymous tools are exactly the five public catalog and site reads', () => {
    const allowed = ['products.search', 'products.get', 'categories.list', 'site.list_pages', 'site.get_page'];
    for (const tool of ANONYMOUS) expect(allowed).toContain(tool.name);
    for (const name of ['products.search', 'products.get', 'categories.list']) expect(ANONYMOUS.map((x) => x.name)).toContain(name);
  });

  it('an anonymous tool called with an invalid key is 401 (a presented key is always checked)', async () => {
    const res = await t.call('products.search', {}, 'aak_garbage');
    expectProblem(res, 401, 'unauthorized');
  });

  it('an anonymous tool works with a key of any scope', async () => {
    const res = await t.call('products.search', {}, await t.key(['orders:read']));
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('unknown, revoked, rotated and expired keys', () => {
  it('a well-formed unknown key is 401 with the same body as a revoked key', async () => {
    const id = generateKeyId();
    const unknown = generateKey(id).key;
    expect(parseKey(unknown)).toEqual({ id });
    const r1 = await t.call('products.create', {}, unknown);
    const b1 = expectProblem(r1, 401, 'unauthorized');

    const issued = await createKey(t.db, { name: 'to-revoke', scopes: ['products:write'] });
    await revokeKey(t.db, issued.id);
    const r2 = await t.call('products.create', {}, issued.key);
    const b2 = expectProblem(r2, 401, 'unauthorized');
    expect(withoutInstance(b2)).toEqual(withoutInstance(b1));
    expect(r2.headers['www-authenticate']).toBe(r1.headers['www-authenticate']);
  });

  it('a revoked key is refused 1 s after revocation at the latest, and stays refused', async () => {
    const issued = await createKey(t.db, { name: 'revoke-me', scopes: ['catalog:read'] });
    // Warm the key cache so the revocation has to beat it.
    expect((await t.call('products.search', {}, issued.key)).statusCode).toBe(200);
    await revokeKey(t.db, issued.id);
    const since = Date.now();
    // Any request arriving 1 s after the revocation is refused (the app's key cache lives under 1 s).
    await sleepUntil(since, 1000);
    for (let i = 0; i < 3; i++) expectProblem(await t.call('products.search', {}, issued.key), 401, 'unauthorized');
    expect((await t.db.apiKey.findUniqueOrThrow({ where: { id: issued.id } })).revokedAt).toBeInstanceOf(Date);
    await expect(revokeKey(t.db, issued.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a rotated key: the old secret is refused within 1 s, the new one works', async () => {
    const issued = await createKey(t.db, { name: 'rotate-me', scopes: ['catalog:read'] });
    expect((await t.call('products.search', {}, issued.key)).statusCode).toBe(200);
    const rotated = await rotateKey(t.db, issued.id);
    const since = Date.now();
    expect(rotated).toEqual({ id: issued.id, name: 'rotate-me', scopes: ['catalog:read'], key: expect.any(String), grantsEnded: 0 });
    expect(rotated.key).not.toBe(issued.key);
    expect(parseKey(rotated.key)).toEqual({ id: issued.id });

    await sleepUntil(since, 1000);
    expectProblem(await t.call('products.search', {}, issued.key), 401, 'unauthorized');
    expect((await t.call('products.search', {}, rotated.key)).statusCode).toBe(200);
    expectProblem(await t.call('products.search', {}, issued.key), 401, 'unauthorized');
    const row = await t.db.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
    expect(row.secretHash).toBe(hashKey(rotated.key));
  });

  it('an expired key is 401; one expiring later works', async () => {
    const expired = await createKey(t.db, { name: 'old', scopes: ['products:write'], expiresAt: new Date(Date.now() - 1000) });
    expectProblem(await t.call('products.create', {}, expired.key), 401, 'unauthorized');
    const valid = await createKey(t.db, { name: 'new', scopes: ['products:write'], expiresAt: new Date(Date.now() + 3_600_000) });
    expectProblem(await t.call('products.create', {}, valid.key), 400, 'invalid_request');
  });

  it('a key is stored as its SHA-256 only, and its use is recorded in lastUsedAt', async () => {
    const issued = await createKey(t.db, { name: 'stored', scopes: ['catalog:read'] });
    const row = await t.db.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
    expect(row.secretHash).toBe(createHash('sha256').update(issued.key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(issued.key.slice(17, 49));
    expect(row.lastUsedAt).toBeNull();
    expect((await t.call('products.search', {}, issued.key)).statusCode).toBe(200);
    await expect
      .poll(async () => (await t.db.apiKey.findUniqueOrThrow({ where: { id: issued.id } })).lastUsedAt, { timeout: 10_000 })
      .toBeInstanceOf(Date);
  });

  it('an authenticated call costs at most one key lookup besides the tool’s own query', async () => {
    const key = await t.key(['categories:read']);
    await sleep(50);
    queries = 0;
    expect((await t.call('categories.list', {}, key)).statusCode).toBe(200);
    expect(queries).toBeLessThanOrEqual(3); // key lookup + lastUsedAt + categories query
    await sleep(50);
    queries = 0;
    expect((await t.call('categories.list', {}, key)).statusCode).toBe(200);
    expect(queries).toBeLessThanOrEqual(2);
  });
});

describe('src/auth/key-format.ts', () => {
  it('generates aak_<12-char id>_<32-char secret><6-char checksum>', () => {
    const id = generateKeyId();
    expect(id).toMatch(/^[0-9A-Za-z]{12}$/);
    const { key, hash } = generateKey(id);
    expect(key).toMatch(new RegExp(`^aak_${id}_[0-9A-Za-z]{38}$`));
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(parseKey(key)).toEqual({ id });
    expect(generateKey(id).key).not.toBe(key);
  });

  it('rejects every one-character change of a key (checksum)', () => {
    const { key } = generateKey(generateKeyId());
    for (let i = 4; i < key.length; i++) {
      if (key[i] === '_') continue;
      const replacement = BASE62[(BASE62.indexOf(key[i]) + 1 + (i % 61)) % 62];
      const changed = key.slice(0, i) + replacement + key.slice(i + 1);
      expect(changed).not.toBe(key);
      expect(parseKey(changed), `position ${i}`).toBeNull();
    }
  });

  it('rejects wrong prefixes, lengths and characters', () => {
    const { key } = generateKey(generateKeyId());
    for (const bad of ['', 'aak_', key.toUpperCase(), key.replace('aak_', 'aak-'), `${key}0`, key.slice(1), key.replace(/_/g, ''), `${key.slice(0, 20)}!${key.slice(21)}`, ` ${key}`]) {
      expect(parseKey(bad), bad).toBeNull();
    }
  });

  it('compares hashes in constant time and only equal hashes match', () => {
    const a = hashKey('a');
    expect(hashesEqual(a, hashKey('a'))).toBe(true);
    expect(hashesEqual(a, hashKey('b'))).toBe(false);
    expect(hashesEqual(a, a.slice(0, 10))).toBe(false);
  });

  it('KeyStore refuses malformed keys without touching the database', async () => {
    const store = new KeyStore(null as never);
    expect(await store.authenticate('aak_nope')).toBeNull();
  });
});

describe('parseScopes', () => {
  it('"all" is the 21 scopes', () => {
    expect(parseScopes('all')).toEqual([...SCOPES]);
    expect(SCOPES).toHaveLength(21);
  });

  it('parses a comma-separated list, trimming and de-duplicating', () => {
    expect(parseScopes('catalog:read, products:write,catalog:read')).toEqual(['catalog:read', 'products:write']);
  });

  it('refuses unknown scopes by name, and an empty list', () => {
    expect(() => parseScopes('catalog:read,products:admin')).toThrow(/products:admin/);
    expect(() => parseScopes('catalog:read,products:admin')).toThrow(AppError);
    expect(() => parseScopes('')).toThrow(AppError);
    expect(() => parseScopes(' , ')).toThrow(AppError);
    expect(() => parseScopes('ALL')).toThrow(AppError);
  });
});
