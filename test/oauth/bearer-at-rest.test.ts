// Bearer credentials of the built-in authorization server at rest: over real HTTP (the app listening on a port), a
// code, its tokens, a refreshed pair and the browser's session cookie appear nowhere in the OAuthRecord rows, and
// still work; the migration re-keys a session row of the earlier form into exactly the row the code writes now.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { authorizationRequest, CALLBACK_URL, openConsentPage, registerClient, submitConsent, type TokenResponse } from './mcp-host.ts';

let t: TestApp;
let base: string;
let clientId: string;
let operatorKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  clientId = await registerClient(base, 'At Rest Client');
  operatorKey = await t.key(['features:read']);
});
afterAll(async () => t?.close());

const hashed = (value: string) => createHash('sha256').update(value).digest('base64url');

/** Every OAuthRecord row as PostgreSQL holds it: what a dump, a backup or a replica would show. */
async function rawRows(): Promise<string> {
  const rows = await t.db.$queryRaw<{ row: string }[]>`SELECT row_to_json(r)::text AS row FROM "OAuthRecord" r`;
  return rows.map((r) => r.row).join('\n');
}

async function tokenRequest(params: Record<string, string>) {
  return fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: clientId, ...params }) });
}

const callTool = (token: string) =>
  fetch(`${base}/api/v1/tools/features.list`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });

/** One authorization up to the redirect with its code; also returns the browser's cookies and its session's. */
async function authorize() {
  const { url, verifier } = authorizationRequest(base, { client_id: clientId, resource: `${base}/api/v1`, scope: 'features:read' });
  const page = await openConsentPage(url);
  const out = await submitConsent(page, { operator_key: operatorKey, scope: 'features:read', decision: 'approve' });
  if (!('redirect' in out)) throw new Error(`consent refused (${out.status}): ${out.html}`);
  const session = /(?:^|; )_session=([^;]+)/.exec(page.jar.header())?.[1];
  if (!session) throw new Error(`no session cookie in ${page.jar.header()}`);
  return { code: out.redirect.searchParams.get('code')!, verifier, session, jar: page.jar };
}

describe('bearer credentials at rest', () => {
  it('keeps no code, access token, refresh token or session cookie in any row, and all of them still work', async () => {
    const { code, verifier, session } = await authorize();
    let rows = await rawRows();
    expect(rows).toContain(`AuthorizationCode:${hashed(code)}`);
    expect(rows).toContain(`Session:${hashed(session)}`);
    expect(rows).not.toContain(code);
    expect(rows).not.toContain(session);

    const exchanged = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: CALLBACK_URL, resource: `${base}/api/v1` });
    expect(exchanged.status).toBe(200);
    const first = (await exchanged.json()) as TokenResponse;
    rows = await rawRows();
    expect(rows).toContain(`AccessToken:${hashed(first.access_token)}`);
    expect(rows).toContain(`RefreshToken:${hashed(first.refresh_token)}`);
    for (const secret of [code, session, first.access_token, first.refresh_token]) expect(rows).not.toContain(secret);
    expect((await callTool(first.access_token)).status).toBe(200);

    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as TokenResponse;
    rows = await rawRows();
    for (const secret of [second.access_token, second.refresh_token]) expect(rows).not.toContain(secret);
    expect((await callTool(second.access_token)).status).toBe(200);

    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: second.refresh_token, token_type_hint: 'refresh_token', client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    expect(await t.db.oAuthRecord.count({ where: { id: `RefreshToken:${hashed(second.refresh_token)}` } })).toBe(0);
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: second.refresh_token })).status).toBe(400);
  });

  it('the session row is stored without its id and still carries the browser through a second authorization', async () => {
    const { session, jar } = await authorize();
    const row = await t.db.oAuthRecord.findUniqueOrThrow({ where: { id: `Session:${hashed(session)}` } });
    expect(row.payload).not.toHaveProperty('jti');
    expect(row.payload).toMatchObject({ accountId: expect.any(String), uid: row.uid });

    // The same browser (same cookies) asks again: the library finds its session by the cookie, the operator is asked
    // again (every authorization is), and the interaction it stores does not copy the session cookie's value.
    const again = authorizationRequest(base, { client_id: clientId, resource: `${base}/api/v1`, scope: 'features:read' });
    const res = await fetch(again.url, { redirect: 'manual', headers: { cookie: jar.header() } });
    expect(res.status).toBe(303);
    const interactions = await t.db.oAuthRecord.findMany({ where: { id: { startsWith: 'Interaction:' } } });
    const withSession = interactions.filter((i) => JSON.stringify(i.payload).includes(row.uid!));
    expect(withSession).toHaveLength(1);
    expect(JSON.stringify(withSession[0]!.payload)).not.toContain(session);
  });
});

describe('migration 20261129160000_session_ids_hashed', () => {
  it('re-keys a session row of the earlier form into exactly the row the code writes, and strips an interaction\'s copy', async () => {
    const { session } = await authorize();
    const current = await t.db.oAuthRecord.findUniqueOrThrow({ where: { id: `Session:${hashed(session)}` } });
    const sql = await readFile(path.join(DEFAULT_MIGRATIONS_DIR, '20261129160000_session_ids_hashed', 'migration.sql'), 'utf8');
    const client = new pg.Client({ connectionString: t.url });
    await client.connect();
    try {
      // In a transaction rolled back at the end. The migration re-keys every session row; the other tests' are new-form.
      await client.query('BEGIN');
      await client.query(`DELETE FROM "OAuthRecord" WHERE "id" LIKE 'Session:%' AND "id" <> $1`, [current.id]);
      await client.query(`UPDATE "OAuthRecord" SET "id" = $1, "payload" = "payload" || jsonb_build_object('jti', $2::text) WHERE "id" = $3`, [
        `Session:${session}`,
        session,
        current.id,
      ]);
      await client.query(`INSERT INTO "OAuthRecord" ("id", "payload") VALUES ('Interaction:earlier', $1)`, [
        { kind: 'Interaction', session: { accountId: 'key-1', uid: current.uid, cookie: session } },
      ]);
      await client.query(sql);
      const { rows } = await client.query<{ id: string; payload: unknown }>(`SELECT "id", "payload" FROM "OAuthRecord" WHERE "id" LIKE 'Session:%' OR "id" = 'Interaction:earlier' ORDER BY "id"`);
      expect(rows).toEqual([
        { id: 'Interaction:earlier', payload: { kind: 'Interaction', session: { accountId: 'key-1', uid: current.uid } } },
        { id: current.id, payload: current.payload },
      ]);
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });
});
