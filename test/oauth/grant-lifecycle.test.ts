// A grant lives no longer than the key that approved it, and one refresh token has exactly one successor: over real
// HTTP against the app listening on a port, asserting on the token endpoint's answers, the API's and the rows.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey, rotateKey } from '../../src/auth/key-admin.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { obtainTokens, registerClient, type TokenResponse } from './mcp-host.ts';

let t: TestApp;
let base: string;
let clientId: string;

/** Each instance re-reads a grant it checked after 0.75 s; a little more, and every cache has seen the change. */
const REVOCATION_DELAY_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  clientId = await registerClient(base, 'Lifecycle Client');
});
afterAll(async () => t?.close());

const callTool = (token: string) =>
  fetch(`${base}/api/v1/tools/features.list`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });

const refresh = (refreshToken: string) =>
  fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
  });

/** A grant approved with `key` (a new key named `name` by default), used once so every cache holds it. */
async function approvedGrant(name: string, key?: { id: string; key: string }): Promise<{ keyId: string; key: string; tokens: TokenResponse; grantId: string }> {
  const operator = key ?? (await createKey(t.db, { name, scopes: ['features:read'] }));
  const tokens = await obtainTokens(base, { clientId, operatorKey: operator.key, resource: `${base}/api/v1`, scope: 'features:read' });
  expect((await callTool(tokens.access_token)).status).toBe(200);
  const grant = await t.db.oAuthGrant.findFirstOrThrow({ where: { apiKeyId: operator.id }, orderBy: { createdAt: 'desc' } });
  return { keyId: operator.id, key: operator.key, tokens, grantId: grant.id };
}

async function expectGrantEnded(grantId: string, tokens: TokenResponse, reason: string) {
  await sleep(REVOCATION_DELAY_MS);
  expect((await callTool(tokens.access_token)).status).toBe(401);
  const refused = await refresh(tokens.refresh_token);
  expect(refused.status).toBe(400);
  expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
  expect((await t.db.oAuthGrant.findUniqueOrThrow({ where: { id: grantId } })).revokedAt).not.toBeNull();
  expect(await t.db.oAuthRecord.count({ where: { OR: [{ grantId }, { id: `Grant:${grantId}` }] } })).toBe(0);
  const audit = await t.db.auditEntry.findMany({ where: { entityId: grantId, tool: 'oauth.revoke' } });
  expect(audit.map((a) => a.meta)).toEqual([{ reason }]);
}

describe('grants follow their key', () => {
  it('revoking a key ends every grant it approved, and only those; it says how many', async () => {
    const first = await approvedGrant('revoked operator');
    const second = await approvedGrant('', { id: first.keyId, key: first.key });
    const bystander = await approvedGrant('bystander');
    expect(await revokeKey(t.db, first.keyId)).toEqual({ grantsEnded: 2 });
    for (const ended of [first, second]) await expectGrantEnded(ended.grantId, ended.tokens, 'the API key that approved it was revoked');
    expect((await callTool(bystander.tokens.access_token)).status).toBe(200);
    expect((await refresh(bystander.tokens.refresh_token)).status).toBe(200);
  });

  it('rotating a key ends every grant it approved; the key itself keeps working with its new secret', async () => {
    const { keyId, tokens, grantId } = await approvedGrant('rotated operator');
    const rotated = await rotateKey(t.db, keyId);
    expect(rotated.grantsEnded).toBe(1);
    await expectGrantEnded(grantId, tokens, 'the API key that approved it was rotated');
    expect((await callTool(rotated.key)).status).toBe(200);
  });

  it('a refresh is refused when the approving key was revoked, even if the grant was not marked', async () => {
    const { keyId, tokens } = await approvedGrant('revoked behind the CLI’s back');
    // As a revocation by an older release would leave it: the key revoked, its grants untouched.
    await t.db.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
    const refused = await refresh(tokens.refresh_token);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    await sleep(REVOCATION_DELAY_MS);
    expect((await callTool(tokens.access_token)).status).toBe(401);
  });
});

describe('one refresh, one successor', () => {
  it('six concurrent refreshes with one token: exactly one succeeds, the others are reuse and end the grant', async () => {
    const { tokens, grantId } = await approvedGrant('concurrent refresher');
    const answers = await Promise.all(Array.from({ length: 6 }, () => refresh(tokens.refresh_token)));
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<Record<string, string>>));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    for (const body of bodies.filter((b) => !b.access_token)) expect(body.error).toBe('invalid_grant');
    const winner = bodies.find((b) => b.access_token)! as unknown as TokenResponse;

    // The fork is closed: the winner's successor is dead too, and the grant ended once, audited once.
    const afterwards = await refresh(winner.refresh_token);
    expect(afterwards.status).toBe(400);
    await sleep(REVOCATION_DELAY_MS);
    expect((await callTool(winner.access_token)).status).toBe(401);
    expect((await t.db.oAuthGrant.findUniqueOrThrow({ where: { id: grantId } })).revokedAt).not.toBeNull();
    expect(await t.db.auditEntry.count({ where: { entityId: grantId, tool: 'oauth.revoke' } })).toBe(1);
  });

  it('a sequential refresh still rotates: the new token works, the old one is reuse', async () => {
    const { tokens } = await approvedGrant('sequential refresher');
    const next = await refresh(tokens.refresh_token);
    expect(next.status).toBe(200);
    const successor = (await next.json()) as TokenResponse;
    expect((await refresh(successor.refresh_token)).status).toBe(200);
  });
});
