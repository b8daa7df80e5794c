// OAUTH_ISSUER's JWTs must be access tokens (`typ: at+jwt`, RFC 9068), carry `exp`, and be signed with an
// allow-listed asymmetric algorithm (src/oauth/access-tokens.ts). The issuer here is a small server of the test's
// own, publishing RFC 8414 metadata and a key set, so the test can sign whatever token a hostile or sloppy issuer
// might hand out.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const SERVICE = 'http://service.test';
let issuerServer: Server;
let issuer: string;
let t: TestApp;
let rsa: JWK;
let ec: CryptoKey;

beforeAll(async () => {
  const [rsaPair, ecPair] = await Promise.all([generateKeyPair('RS256', { extractable: true }), generateKeyPair('ES256', { extractable: true })]);
  rsa = await exportJWK(rsaPair.privateKey);
  ec = ecPair.privateKey;
  // No `alg` on the keys: the key set itself would let the RSA key verify any RS* or PS* algorithm.
  const keys = [{ ...(await exportJWK(rsaPair.publicKey)), kid: 'rsa' }, { ...(await exportJWK(ecPair.publicKey)), kid: 'ec' }];
  issuerServer = createServer((req, res) => {
    const origin = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    const body = req.url === '/.well-known/oauth-authorization-server/oauth' ? { issuer: `${origin}/oauth`, jwks_uri: `${origin}/jwks` } : req.url === '/jwks' ? { keys } : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}/oauth`;
  t = await createTestApp({ env: { OAUTH_ISSUER: issuer, PUBLIC_BASE_URL: SERVICE } });
});

afterAll(async () => {
  await t?.close();
  issuerServer?.close();
});

type Header = { alg: string; typ?: string; kid?: string };

async function token(opts: { header?: Partial<Header>; claims?: JWTPayload; exp?: number | null; key?: CryptoKey | Uint8Array } = {}) {
  const header: Header = { alg: 'RS256', typ: 'at+jwt', kid: 'rsa', ...opts.header };
  const jwt = new SignJWT({ scope: 'features:read', ...opts.claims })
    .setProtectedHeader(header)
    .setIssuer(issuer)
    .setAudience(`${SERVICE}/api/v1`)
    .setSubject('agent-7')
    .setIssuedAt();
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? '5m');
  // The issuer's own RSA key, imported for whichever RS* or PS* algorithm the header names.
  return jwt.sign(opts.key ?? (await importJWK(rsa, header.alg)));
}

/** An unsigned JWT (`alg: none`), which jose never produces. */
function unsecured(): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none', typ: 'at+jwt' })}.${part({ iss: issuer, aud: `${SERVICE}/api/v1`, sub: 'agent-7', scope: 'features:read', iat: now, exp: now + 300 })}.`;
}

const callWith = (jwt: string) =>
  t.app.inject({ method: 'POST', url: '/api/v1/tools/features.list', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, payload: '{}' });

describe('access tokens of an external issuer (OAUTH_ISSUER)', () => {
  it('accepts an at+jwt with exp, signed with RS256, ES256, or typed application/at+jwt', async () => {
    expect((await callWith(await token())).statusCode).toBe(200);
    expect((await callWith(await token({ header: { alg: 'ES256', kid: 'ec' }, key: ec }))).statusCode).toBe(200);
    expect((await callWith(await token({ header: { typ: 'application/at+jwt' } }))).statusCode).toBe(200);
  });

  it.each([
    ['without exp', () => token({ exp: null })],
    ['expired', () => token({ exp: Math.floor(Date.now() / 1000) - 120 })],
    ['typed JWT (an ID token or any other JWT of the issuer)', () => token({ header: { typ: 'JWT' } })],
    ['without typ', () => token({ header: { typ: undefined } })],
    ['signed with RS512, a valid signature by the issuer’s key but not an allow-listed algorithm', () => token({ header: { alg: 'RS512' } })],
    ['signed with PS384, likewise', () => token({ header: { alg: 'PS384' } })],
    ['signed with HS256 (a shared secret)', () => token({ header: { alg: 'HS256', kid: undefined }, key: new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!') })],
    ['unsigned (alg none)', async () => unsecured()],
  ])('refuses a token %s with 401 invalid_token', async (_name, make) => {
    const res = await callWith(await make());
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(res.json()).toMatchObject({ code: 'unauthorized' });
  });
});
