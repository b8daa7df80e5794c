import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';
import { SetupError } from '../setup-error.ts';
import { newSecretsKey, parseSecretsKey, SecretBox } from './secret-box.ts';

/** Where the generated key of an installation without SECRETS_KEY is kept, under DATA_DIR. */
export const SECRETS_KEY_FILE = 'secrets.key';

/**
 * The secret box of this process: SECRETS_KEY (and SECRETS_KEY_PREVIOUS) when set. Otherwise (development: loadConfig
 * refuses that in production) the key in DATA_DIR/secrets.key, generated on the first start, readable by this user
 * only; the server and the CLI of one checkout share it as they share the embedded database.
 */
export async function openSecretBox(config: Config): Promise<SecretBox> {
  const { key, previousKey } = config.secrets;
  if (key === undefined) {
    const file = secretsKeyFile(config);
    return new SecretBox(await keyFromFile(file), [], `SECRETS_KEY (unset: the key in ${file})`);
  }
  return new SecretBox(decoded(key), previousKey === undefined ? [] : [decoded(previousKey)]);
}

export const secretsKeyFile = (config: Config) => path.resolve(config.dataDir, SECRETS_KEY_FILE);

/** loadConfig has checked the format; a value that still does not parse is a bug, not a setting. */
function decoded(key: string): Buffer {
  const bytes = parseSecretsKey(key);
  if (!bytes) throw new Error('a secrets key that loadConfig accepted does not parse');
  return bytes;
}

async function keyFromFile(file: string): Promise<Buffer> {
  let text = await readKeyFile(file);
  if (text === null) {
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
    // Written privately beside it, then linked into place: of two processes starting at once, the first link wins and
    // both read the winner's key.
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(tmp, `${newSecretsKey()}\n`, { mode: 0o600, flag: 'wx' });
      await fs.link(tmp, file).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
    } finally {
      await fs.rm(tmp, { force: true });
    }
    text = (await readKeyFile(file)) ?? '';
  }
  const key = parseSecretsKey(text);
  if (!key) throw new SetupError(`${file} does not hold a key in the format SECRETS_KEY takes: restore it from a backup, or set SECRETS_KEY.`);
  return key;
}

async function readKeyFile(file: string): Promise<string | null> {
  try {
    const stat = await fs.stat(file);
    if ((stat.mode & 0o077) !== 0) {
      throw new SetupError(`${file} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}): make it private with chmod 600 ${file}.`);
    }
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
