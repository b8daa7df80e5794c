// The service's UCP signing keys and RFC 9421 HTTP message signatures with them (docs/agentic-checkout.md,
// "Signing keys"). ES256 (ECDSA P-256, SHA-256); the private key is kept sealed in "ServerSecret" like the other
// server secrets, the public key is published in /.well-known/ucp as a JWK. The newest key signs; every key not
// retired stays published, so platforms verify webhooks signed before a rotation.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { sqlOf, type SqlSource } from '../../db/sql.ts';
import type { SecretBox } from '../../secrets/secret-box.ts';
import { sealedIn } from '../../secrets/stored-secrets.ts';

/** ServerSecret names of the signing keys: this prefix and the key id. */
export const SIGNING_KEY_PREFIX = 'ucp-signing-key:';

export type SigningKey = { kid: string; privateKey: KeyObject; publicJwk: PublicJwk; createdAt: Date };
export type PublicJwk = { kid: string; kty: string; crv: string; x: string; y: string; use: 'sig'; alg: 'ES256' };

function publicJwkOf(kid: string, key: KeyObject): PublicJwk {
  const jwk: JsonWebKey = createPublicKey(key).export({ format: 'jwk' });
  return { kid, kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x), y: String(jwk.y), use: 'sig', alg: 'ES256' };
}

/** A new key, stored sealed; it signs from now on (it is the newest). */
export async function addSigningKey(db: SqlSource, secrets: SecretBox, now = new Date()): Promise<string> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = `ucp_${now.toISOString().slice(0, 10).replaceAll('-', '')}_${createHash('sha256').update(publicJwkOf('', privateKey).x).digest('hex').slice(0, 8)}`;
  const name = `${SIGNING_KEY_PREFIX}${kid}`;
  const material = JSON.stringify(privateKey.export({ format: 'jwk' }));
  await sqlOf(db).query(`INSERT INTO "ServerSecret" (name, value, "createdAt") VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`, [
    name,
    secrets.seal(material, sealedIn.serverSecret(name)),
    now,
  ]);
  return kid;
}

/** Stops publishing a key (after a rotation, once webhooks signed with it are no longer retried). */
export async function retireSigningKey(db: SqlSource, kid: string): Promise<boolean> {
  const { rowCount } = await sqlOf(db).query(`DELETE FROM "ServerSecret" WHERE name = $1`, [`${SIGNING_KEY_PREFIX}${kid}`]);
  return rowCount === 1;
}

type SecretRow = { name: string; value: string; createdAt: Date };

async function publishedKeys(db: SqlSource): Promise<SecretRow[]> {
  const { rows } = await sqlOf(db).query<SecretRow>(
    `SELECT name, value, "createdAt" FROM "ServerSecret" WHERE starts_with(name, $1) ORDER BY "createdAt" DESC, name DESC`,
    [SIGNING_KEY_PREFIX],
  );
  return rows;
}

/** Every published key, newest first; the first one is created when there is none yet (first use of any instance). */
export async function signingKeys(db: SqlSource, secrets: SecretBox): Promise<SigningKey[]> {
  let rows = await publishedKeys(db);
  if (rows.length === 0) {
    await addSigningKey(db, secrets);
    rows = await publishedKeys(db);
  }
  return rows.map((row) => {
    const kid = row.name.slice(SIGNING_KEY_PREFIX.length);
    const jwk: JsonWebKey = JSON.parse(secrets.open(row.value, sealedIn.serverSecret(row.name)));
    const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    return { kid, privateKey, publicJwk: publicJwkOf(kid, privateKey), createdAt: row.createdAt };
  });
}

/** RFC 9530 Content-Digest of a body (sha-256). */
export const contentDigest = (body: string) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

/** The components a webhook signature covers (RFC 9421 §2): method, target, and the body through its digest. */
const COVERED = ['@method', '@authority', '@path', 'content-digest', 'content-type'] as const;

type Message = { method: string; url: string; headers: Record<string, string> };

function componentValue(name: string, m: Message): string {
  const url = new URL(m.url);
  if (name === '@method') return m.method.toUpperCase();
  if (name === '@authority') return url.host.toLowerCase();
  if (name === '@path') return url.pathname;
  const value = Object.entries(m.headers).find(([k]) => k.toLowerCase() === name)?.[1];
  if (value === undefined) throw new Error(`the message has no ${name} header to sign`);
  return value.trim();
}

const signatureBase = (m: Message, components: readonly string[], params: string) =>
  [...components.map((c) => `"${c}": ${componentValue(c, m)}`), `"@signature-params": ${params}`].join('\n');

/**
 * The Signature-Input and Signature headers of a request signed with `key` (label sig1). The message must already
 * carry its Content-Digest and Content-Type headers.
 */
export function signRequest(m: Message, key: SigningKey, now = new Date()): { 'signature-input': string; signature: string } {
  const params = `(${COVERED.map((c) => `"${c}"`).join(' ')});created=${Math.floor(now.getTime() / 1000)};keyid="${key.kid}";alg="ecdsa-p256-sha256"`;
  const value = sign('sha256', Buffer.from(signatureBase(m, COVERED, params)), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return { 'signature-input': `sig1=${params}`, signature: `sig1=:${value.toString('base64')}:` };
}

/**
 * Verifies sig1 of a signed message against published JWKs (what a platform does with a webhook; the tests use it).
 * True only when the digest matches the body and the signature verifies with the key its keyid names.
 */
export function verifyRequest(m: Message & { body: string }, jwks: readonly PublicJwk[]): boolean {
  const header = (n: string) => Object.entries(m.headers).find(([k]) => k.toLowerCase() === n)?.[1];
  const input = /^sig1=(\((?:"[^"]+"\s?)*\)(?:;.*)?)$/.exec(header('signature-input') ?? '');
  const signature = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(header('signature') ?? '');
  if (!input || !signature || header('content-digest') !== contentDigest(m.body)) return false;
  const params = input[1];
  const components = [...params.slice(1, params.indexOf(')')).matchAll(/"([^"]+)"/g)].map((x) => x[1]);
  const kid = /;keyid="([^"]+)"/.exec(params)?.[1];
  const jwk = jwks.find((k) => k.kid === kid);
  if (!jwk || !components.includes('content-digest')) return false;
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' });
  return verify('sha256', Buffer.from(signatureBase(m, components, params)), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature[1], 'base64'));
}

/**
 * JSON with its object keys sorted at every depth and no whitespace: the JSON canonical form (RFC 8785) for the
 * values this service sends (strings, integers, booleans, null), so a receiver that canonicalizes before digesting
 * gets the same Content-Digest.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
