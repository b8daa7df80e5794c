// Secrets kept in the database (OAuth signing keys and cookie secrets, webhook signing secrets, the MCP state secret)
// are sealed with AES-256-GCM under a key derived from SECRETS_KEY (docs/deploy.md, "Secrets at rest"). A sealed value
// is one string, `sealed:v1:<kid>:<iv>:<ciphertext and tag>` (base64url), so a reader knows which key sealed it and a
// rotation knows which values still need the new key. The additional data binds a value to the row it belongs to: a
// sealed value copied into another row does not open.
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A SECRETS_KEY must carry at least this much randomness. */
const SECRETS_KEY_MIN_BYTES = 32;
// HKDF labels: the same SECRETS_KEY yields an encryption key and a public key id that reveals nothing about it.
const SALT = 'agent-api secrets';
const KEY_INFO = 'sealed:v1 aes-256-gcm';
const KID_INFO = 'sealed:v1 key id';

/** A sealed value that does not open: sealed under a key this box does not hold, changed, or moved to another row. */
export class SecretBoxError extends Error {}

/** Base64 or base64url, at least 32 bytes once decoded (`openssl rand -base64 32`). */
export function parseSecretsKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed, 'base64');
  return bytes.length >= SECRETS_KEY_MIN_BYTES ? bytes : null;
}

/** A fresh key in the format SECRETS_KEY accepts. */
export const newSecretsKey = () => randomBytes(SECRETS_KEY_MIN_BYTES).toString('base64url');

export const isSealed = (value: string) => value.startsWith(PREFIX);

/** The id of the key that sealed `value`, or null when it is not sealed. */
export function sealedKid(value: string): string | null {
  return isSealed(value) ? value.slice(PREFIX.length).split(':', 1)[0]! : null;
}

type DerivedKey = { kid: string; key: KeyObject };

function derive(secretsKey: Buffer): DerivedKey {
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', secretsKey, SALT, KEY_INFO, 32)));
  const kid = Buffer.from(hkdfSync('sha256', secretsKey, SALT, KID_INFO, 6)).toString('base64url');
  return { kid, key };
}

/** Seals with the current key; opens what the current or a previous key sealed. */
export class SecretBox {
  /** The id of the key new values are sealed with. */
  readonly kid: string;
  /** Where the current key came from, as errors name it. */
  readonly source: string;
  private readonly current: DerivedKey;
  private readonly keys: ReadonlyMap<string, KeyObject>;

  constructor(current: Buffer, previous: readonly Buffer[] = [], source = 'SECRETS_KEY') {
    this.current = derive(current);
    this.source = source;
    this.kid = this.current.kid;
    this.keys = new Map([this.current, ...previous.map(derive)].map((k) => [k.kid, k.key]));
  }

  /** `context` names the row the value is stored in (e.g. `webhook-endpoint:we_…`); open must give the same one. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${this.current.kid}:${iv.toString('base64url')}:${body.toString('base64url')}`;
  }

  /** The plaintext of a sealed value; a value that is not sealed, or does not open, is a SecretBoxError. */
  open(sealed: string, context: string): string {
    if (!isSealed(sealed)) throw new SecretBoxError(`the secret of ${context} is not sealed`);
    const [kid, iv, body, ...rest] = sealed.slice(PREFIX.length).split(':');
    const key = this.keys.get(kid!);
    if (!key) throw new SecretBoxError(`the secret of ${context} was sealed under key id ${kid}, which is neither ${this.source} (key id ${this.kid}) nor SECRETS_KEY_PREVIOUS`);
    const ivBytes = Buffer.from(iv ?? '', 'base64url');
    const bodyBytes = Buffer.from(body ?? '', 'base64url');
    if (rest.length > 0 || ivBytes.length !== IV_BYTES || bodyBytes.length < TAG_BYTES) throw new SecretBoxError(`the secret of ${context} is malformed`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bodyBytes.subarray(bodyBytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bodyBytes.subarray(0, bodyBytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(`the secret of ${context} does not open with key id ${kid}: it was changed or belongs to another row`);
    }
  }

  /** Not sealed, or sealed under a previous key: `secrets reencrypt` seals it again under the current one. */
  isStale(value: string): boolean {
    return sealedKid(value) !== this.kid;
  }
}
