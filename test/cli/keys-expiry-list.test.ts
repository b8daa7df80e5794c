// Keys with an expiry, issued by the CLI against a real database: the expiry is stored as asked, the key works until
// then and is refused after (the key store checks expiresAt on every call), and `keys list` shows it all in a table
// with headers, or as JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { ANSI, cli, type Run } from './processes.ts';

const CLI_TIMEOUT = 90_000;
const DAY = 86_400_000;

let database: TestDatabase;
let app: FastifyInstance;
let run: (...args: string[]) => Promise<Run>;
beforeAll(async () => {
  database = await createTestDatabase();
  run = (...args) => cli({ DATABASE_URL: database.url }, ...args);
  app = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: database.url }), { db: database.db });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.drop();
});

const json = (r: Run) => {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.endsWith('\n') && r.stdout.indexOf('\n') === r.stdout.length - 1, r.stdout).toBe(true);
  return JSON.parse(r.stdout);
};
const status = async (key: string) =>
  (await app.inject({ method: 'POST', url: '/api/v1/tools/settings.get', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, payload: {} })).statusCode;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Issued = { id: string; name: string; scopes: string[]; key: string; expiresAt?: string };
type Listed = { id: string; name: string; scopes: string[]; createdAt: string; lastUsedAt: string | null; revokedAt: string | null; expiresAt: string | null; state: string };

describe('keys create with an expiry', () => {
  let thirtyDays: Issued;

  it('--expires-in 30d stores an expiry 30 days from now and prints it; the key works', async () => {
    const before = Date.now();
    thirtyDays = json(await run('keys', 'create', '--name', 'month', '--scopes', 'settings:read', '--expires-in', '30d', '--json'));
    const after = Date.now();
    expect(Object.keys(thirtyDays)).toEqual(['id', 'name', 'scopes', 'key', 'expiresAt']);
    const expiresAt = Date.parse(thirtyDays.expiresAt!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY);
    expect(expiresAt).toBeLessThanOrEqual(after + 30 * DAY);
    const row = await database.db.apiKey.findUniqueOrThrow({ where: { id: thirtyDays.id } });
    expect(row.expiresAt?.toISOString()).toBe(thirtyDays.expiresAt);
    expect(await status(thirtyDays.key)).toBe(200);
  }, CLI_TIMEOUT);

  it('--expires-at takes an ISO date-time with offset, or a date meaning its start in UTC', async () => {
    const exact = json(await run('keys', 'create', '--name', 'partner', '--scopes', 'settings:read', '--expires-at', '2031-03-04T05:06:07+02:00', '--json'));
    expect(exact.expiresAt).toBe('2031-03-04T03:06:07.000Z');
    const date = json(await run('keys', 'create', '--name', 'new-year', '--scopes', 'all', '--expires-at', '2032-01-01', '--json'));
    expect(date.expiresAt).toBe('2032-01-01T00:00:00.000Z');
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: date.id } })).expiresAt?.toISOString()).toBe('2032-01-01T00:00:00.000Z');
  }, CLI_TIMEOUT);

  it('once the expiry has passed the key is refused with 401 and listed as expired', async () => {
    // Time passing, stood in for by moving the stored expiry into the past.
    await database.db.apiKey.update({ where: { id: thirtyDays.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await sleep(1000); // the key store caches a key for under a second
    expect(await status(thirtyDays.key)).toBe(401);
    const listed: Listed[] = json(await run('keys', 'list', '--json'));
    expect(listed.find((k) => k.id === thirtyDays.id)?.state).toBe('expired');
  }, CLI_TIMEOUT);
});

describe('keys list', () => {
  it('prints a table with headers, one row per key, its scopes, times and state; no secrets, no colour when piped', async () => {
    const forever: Issued = json(await run('keys', 'create', '--name', 'forever agent', '--scopes', 'catalog:read,orders:read', '--json'));
    const revoked: Issued = json(await run('keys', 'create', '--name', 'gone', '--scopes', 'all', '--json'));
    expect((await run('keys', 'revoke', revoked.id)).code).toBe(0);
    expect(await status(forever.key)).toBe(403); // authenticated (and so "last used"), but settings:read is not among its scopes
    // The key store records the use in the background, without holding up the request.
    let used = await database.db.apiKey.findUniqueOrThrow({ where: { id: forever.id } });
    for (let i = 0; i < 50 && used.lastUsedAt === null; i++) {
      await sleep(100);
      used = await database.db.apiKey.findUniqueOrThrow({ where: { id: forever.id } });
    }
    expect(used.lastUsedAt).toBeInstanceOf(Date);

    const list = await run('keys', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(ANSI);
    const [header, ...rows] = list.stdout.trimEnd().split('\n');
    expect(header.split(/ {2,}/)).toEqual(['ID', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES', 'STATE']);
    const listed: Listed[] = json(await run('keys', 'list', '--json'));
    expect(rows).toHaveLength(listed.length);
    // Columns start where their header starts.
    const starts = ['ID', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES', 'STATE'].map((h) => header.indexOf(h));
    const cells = (line: string) => starts.map((s, i) => line.slice(s, starts[i + 1]).trim());
    const row = (id: string) => cells(rows.find((r) => r.startsWith(id))!);
    const minute = (d: Date | null) => `${d!.toISOString().slice(0, 10)} ${d!.toISOString().slice(11, 16)}Z`;

    expect(row(forever.id)).toEqual([forever.id, 'forever agent', 'catalog:read,orders:read', minute(used.createdAt), minute(used.lastUsedAt), 'never', 'active']);
    expect(row(revoked.id)).toEqual([revoked.id, 'gone', 'all', expect.any(String), 'never', 'never', 'revoked']);
    expect(row(listed.find((k) => k.name === 'month')!.id).at(-1)).toBe('expired');
    expect(row(listed.find((k) => k.name === 'partner')!.id)[5]).toBe('2031-03-04 03:06Z');
    expect(list.stdout).not.toContain(forever.key);

    expect(listed.find((k) => k.id === revoked.id)).toMatchObject({ state: 'revoked', expiresAt: null, revokedAt: expect.any(String) });
    expect(listed.find((k) => k.id === forever.id)).toEqual({
      id: forever.id, name: 'forever agent', scopes: ['catalog:read', 'orders:read'], createdAt: used.createdAt.toISOString(),
      lastUsedAt: used.lastUsedAt!.toISOString(), revokedAt: null, expiresAt: null, state: 'active',
    });
  }, 2 * CLI_TIMEOUT);
});
