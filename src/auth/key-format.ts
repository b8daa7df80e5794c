import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format (docs/contract.md, keys and scopes): `aak_<12-char id>_<32-char base62 secret><6-char base62 CRC32>`.
 * The prefix makes leaked keys findable by secret scanners; the checksum lets us reject garbage before any
 * database lookup.
 */
const PREFIX = 'aak';
const ID_LENGTH = 12;
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${PREFIX}_([0-9A-Za-z]{${ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniformly distributed (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateKeyId(): string {
  return randomBase62(ID_LENGTH);
}

/** A fresh secret for the key id; shown once, stored only as its SHA-256. */
export function generateKey(id: string): { key: string; hash: string } {
  const body = `${PREFIX}_${id}_${randomBase62(SECRET_LENGTH)}`;
  const key = body + checksum(body);
  return { key, hash: hashKey(key) };
}

/** Returns the key id when the key is well formed and its checksum matches; otherwise null. No I/O. */
export function parseKey(key: string): { id: string } | null {
  const m = KEY_PATTERN.exec(key);
  if (!m) return null;
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  return checksum(body) === m[3] ? { id: m[1] } : null;
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
