// Helpers for tests that run the server or an embedded PostgreSQL as separate processes.
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** The pid of the embedded PostgreSQL under `dataDir` (src/db/embedded.ts keeps its cluster in `<dataDir>/pg`). */
export function postmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : null;
}

/** Running and not a zombie. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
