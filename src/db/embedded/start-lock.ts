// The start lock: an O_EXCL file holding {pid, host, nonce, at}; stale when its process is gone.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import { isAlive, sleep } from './processes.ts';

export async function acquireLock(file: string, timeoutMs: number, log: (m: string) => void): Promise<() => Promise<void>> {
  const nonce = randomBytes(8).toString('hex');
  const body = JSON.stringify({ pid: process.pid, host: os.hostname(), nonce, at: new Date().toISOString() });
  const deadline = Date.now() + timeoutMs;
  let waitingLogged = false;
  while (true) {
    try {
      await fs.writeFile(file, body, { flag: 'wx', mode: 0o644 });
      return async () => {
        // Remove only our own lock, never one somebody took after breaking ours as stale.
        const now = await fs.readFile(file, 'utf8').catch(() => '');
        if (now === body) await fs.rm(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await fs.readFile(file, 'utf8').catch(() => null);
    if (holder === null) continue; // released between our attempts
    if (await isStaleLock(file, holder)) {
      // Move it aside instead of unlinking, so that of two processes breaking it at once only one wins.
      const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
      try {
        await fs.rename(file, aside);
        const moved = await fs.readFile(aside, 'utf8');
        if (moved !== holder) await fs.link(aside, file).catch(() => {}); // not the stale one: put it back
        await fs.rm(aside, { force: true });
        if (moved === holder) log(`embedded PostgreSQL: removed a stale lock ${file}`);
      } catch {
        /* somebody else handled it */
      }
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file} (held by ${holder})`);
    if (!waitingLogged) {
      log(`embedded PostgreSQL: waiting for another process to finish starting the database (${file})`);
      waitingLogged = true;
    }
    await sleep(100);
  }
}

async function isStaleLock(file: string, holder: string): Promise<boolean> {
  let info: { pid?: number; host?: string };
  try {
    info = JSON.parse(holder) as { pid?: number; host?: string };
  } catch {
    // Being written right now, or garbage: stale only once it is clearly old.
    const st = await fs.stat(file).catch(() => null);
    return st !== null && Date.now() - st.mtimeMs > 10_000;
  }
  if (info.host === os.hostname() && typeof info.pid === 'number') return !isAlive(info.pid);
  // Another host on a shared file system: nothing to probe, rely on age (start-up never takes minutes).
  const st = await fs.stat(file).catch(() => null);
  return st !== null && Date.now() - st.mtimeMs > 10 * 60_000;
}
