// Grants as the CLI sees them: listed with what was approved and when, ended once, audited; a grant has its own
// rate-limit budget, apart from its operator key's other grants.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listGrants, revokeGrant } from '../../src/oauth/grant-admin.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { obtainTokens, registerClient } from './mcp-host.ts';

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_AUTH_MAX: '3' } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

const call = (token: string) =>
  fetch(`${base}/api/v1/tools/features.list`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });

describe('grants', () => {
  it('are listed with client, operator key (id and name), scopes, resource and times; revoked ones only on request; revoking twice is not_found', async () => {
    const operatorKey = await t.key(['features:read', 'catalog:read']);
    const keyId = operatorKey.split('_')[1];
    const clientId = await registerClient(base, 'Listing Client');
    await obtainTokens(base, { clientId, operatorKey, resource: `${base}/api/v1`, scope: 'features:read' });

    const [grant] = await listGrants(t.db);
    expect(grant).toEqual({
      id: expect.any(String),
      clientId,
      clientName: 'Listing Client',
      apiKeyId: keyId,
      apiKeyName: 'test',
      scopes: ['features:read'],
      resource: `${base}/api/v1`,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastUsedAt: null,
      revokedAt: null,
    });

    await revokeGrant(t.db, grant.id);
    expect(await listGrants(t.db)).toEqual([]);
    expect(await listGrants(t.db, { includeRevoked: true })).toMatchObject([{ id: grant.id, revokedAt: expect.any(String) }]);
    await expect(revokeGrant(t.db, grant.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(revokeGrant(t.db, 'no-such-grant')).rejects.toMatchObject({ code: 'not_found' });
    expect(await t.db.oAuthRecord.count({ where: { grantId: grant.id } })).toBe(0);
    const audit = await t.db.auditEntry.findMany({ where: { entityType: 'oauth_grant', entityId: grant.id }, orderBy: { at: 'asc' } });
    expect(audit.map((a) => [a.tool, a.apiKeyId, a.grantId])).toEqual([
      ['oauth.grant', keyId, grant.id],
      ['oauth.revoke', keyId, grant.id],
    ]);
    expect(audit[1].meta).toEqual({ reason: 'revoked by the operator' });
  });

  it('each has its own rate-limit budget, apart from the key’s direct use and its other grants', async () => {
    const operatorKey = await t.key(['features:read']);
    const clientId = await registerClient(base, 'Limited Client');
    const first = await obtainTokens(base, { clientId, operatorKey, resource: `${base}/api/v1`, scope: 'features:read' });
    const second = await obtainTokens(base, { clientId, operatorKey, resource: `${base}/api/v1`, scope: 'features:read' });
    for (let i = 0; i < 3; i++) expect((await call(first.access_token)).status).toBe(200);
    const limited = await call(first.access_token);
    expect(limited.status).toBe(429);
    expect((await call(second.access_token)).status).toBe(200);
    expect((await call(operatorKey)).status).toBe(200);
  });
});
