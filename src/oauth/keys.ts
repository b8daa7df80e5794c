import { randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Db } from '../db/client.ts';
import { sqlOf, type SqlSource } from '../db/sql.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { sealedIn } from '../secrets/stored-secrets.ts';

/** Signing keys kept for verification after a rotation: the new one signs, the previous one still verifies. */
const KEPT_PER_USE = 2;

export type AuthorizationServerKeys = {
  /** Private JWKs, newest first (the library signs with the first key of an algorithm). */
  signing: JWK[];
  /** Cookie secrets, newest first (the first signs, all verify). */
  cookie: string[];
  /** Changes whenever a rotation happened, so running instances can pick the new keys up. */
  version: string;
};

async function newSigningKey(): Promise<{ id: string; material: JWK }> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { id: kid, material: { ...jwk, kid, alg: 'RS256', use: 'sig' } };
}

function newCookieSecret(): { id: string; material: { secret: string } } {
  return { id: `cookie-${randomBytes(8).toString('hex')}`, material: { secret: randomBytes(32).toString('base64url') } };
}

/**
 * Loads the authorization server's keys from the database, generating them the first time. Every instance reads
 * the same rows, so tokens and cookies made by one are accepted by all. Two instances starting at once may both
 * generate a key: both are then valid and the newer one signs.
 */
export async function loadKeys(db: Db, secrets: SecretBox): Promise<AuthorizationServerKeys> {
  let rows = await activeKeys(db);
  if (!rows.some((r) => r.use === 'sig') || !rows.some((r) => r.use === 'cookie')) {
    await insertKeys(db, secrets);
    rows = await activeKeys(db);
  }
  const opened = rows.map((r) => ({ use: r.use, material: openMaterial(secrets, r) }));
  return {
    signing: opened.filter((r) => r.use === 'sig').map((r) => r.material as JWK),
    cookie: opened.filter((r) => r.use === 'cookie').map((r) => (r.material as { secret: string }).secret),
    version: rows.map((r) => r.id).join(','),
  };
}

/** The key material, stored sealed as a JSON string (src/secrets/); material stored as JSON itself is not sealed and is refused. */
function openMaterial(secrets: SecretBox, row: { id: string; material: unknown }): unknown {
  const stored = typeof row.material === 'string' ? row.material : JSON.stringify(row.material);
  return JSON.parse(secrets.open(stored, sealedIn.oauthKey(row.id)));
}

/** A new signing key and cookie secret take over; the previous ones keep verifying, older ones are retired. */
export async function rotateKeys(db: SqlSource, secrets: SecretBox): Promise<{ kid: string; retired: string[] }> {
  const { signingKid } = await insertKeys(db, secrets);
  // Per use, every active key after the newest KEPT_PER_USE (in activeKeys' order); the retired signing keys are
  // reported newest first.
  const { rows } = await sqlOf(db).query<{ id: string }>(
    `WITH ranked AS (
       SELECT id, use, row_number() OVER (PARTITION BY use ORDER BY "createdAt" DESC, id) AS n FROM "OAuthKey" WHERE "retiredAt" IS NULL
     ), retired AS (
       UPDATE "OAuthKey" k SET "retiredAt" = now() FROM ranked WHERE ranked.id = k.id AND ranked.n > $1 RETURNING k.id, k.use, ranked.n
     )
     SELECT id FROM retired WHERE use = 'sig' ORDER BY n`,
    [KEPT_PER_USE],
  );
  return { kid: signingKid, retired: rows.map((r) => r.id) };
}

/** The current key set's version, one cheap query: instances poll it to notice a rotation made elsewhere. */
export async function keysVersion(db: Db): Promise<string> {
  const rows = await db.oAuthKey.findMany({ where: { retiredAt: null }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], select: { id: true } });
  return rows.map((r) => r.id).join(',');
}

async function activeKeys(db: Db) {
  return db.oAuthKey.findMany({ where: { retiredAt: null }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
}

async function insertKeys(db: SqlSource, secrets: SecretBox): Promise<{ signingKid: string }> {
  const signing = await newSigningKey();
  const cookie = newCookieSecret();
  const sealed = (key: { id: string; material: object }) => secrets.seal(JSON.stringify(key.material), sealedIn.oauthKey(key.id));
  // The sealed material is stored as a JSON string (openMaterial).
  await sqlOf(db).query(`INSERT INTO "OAuthKey" (id, use, material) VALUES ($1, 'sig', to_jsonb($2::text)), ($3, 'cookie', to_jsonb($4::text))`, [
    signing.id,
    sealed(signing),
    cookie.id,
    sealed(cookie),
  ]);
  return { signingKid: signing.id };
}
