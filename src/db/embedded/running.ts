// Finding a postmaster already running on a data directory (started by another process of this checkout).
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isAlive, sleep } from './processes.ts';

export type Running = { pid: number; port: number; status: string };

export async function readPostmasterPid(pgDir: string): Promise<Running | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(pgDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  // Lines: pid, data dir, start time, port, socket dir, listen address, shmem key, status.
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { pid, port: Number.isInteger(port) ? port : 0, status: (lines[7] ?? '').trim() };
}

/** The postmaster running on pgDir, once it is ready; waits while it starts or stops; null if none. */
export async function findRunning(pgDir: string, deadline: number): Promise<Running | null> {
  while (true) {
    const pm = await readPostmasterPid(pgDir);
    // A postmaster.pid left by a crashed server, or whose pid now belongs to another program: not running.
    // Never delete the file ourselves: PostgreSQL checks it (and its shared memory) before overwriting it,
    // which is what keeps two postmasters off one data directory.
    if (!pm || !isAlive(pm.pid) || isOtherProgram(pm.pid)) return null;
    if (pm.status === 'ready' && pm.port > 0) return pm;
    if (Date.now() > deadline) throw new Error(`PostgreSQL on ${pgDir} stayed "${pm.status}" (pid ${pm.pid})`);
    await sleep(100);
  }
}

/** True only when we can see that `pid` is not a PostgreSQL process (Linux /proc); false when unsure. */
function isOtherProgram(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return false;
  }
}
