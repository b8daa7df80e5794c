// Stopping a server this process owns: on stop(), and as a last resort when the process exits without it.
import type { ChildProcess } from 'node:child_process';
import { isAlive, sleep } from './processes.ts';

export function ownerControls(
  pid: number,
  child: ChildProcess | undefined,
  log: (m: string) => void,
): { stop: () => Promise<void>; detach: () => void } {
  // If this process exits without calling stop() (process.exit in a CLI, an uncaught error), the server
  // still gets a fast shutdown request. 'exit' handlers must be synchronous; kill() is.
  const onExit = () => {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      /* already gone */
    }
  };
  process.on('exit', onExit);
  let stopping: Promise<void> | undefined;
  const detach = () => {
    process.off('exit', onExit);
  };
  const stop = () => {
    stopping ??= (async () => {
      process.off('exit', onExit);
      if (!isAlive(pid)) return;
      log(`embedded PostgreSQL: stopping (pid ${pid})`);
      const exited = child && child.exitCode === null && child.signalCode === null
        ? new Promise<void>((resolve) => child.once('exit', () => resolve()))
        : undefined;
      // SIGINT = PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit cleanly.
      for (const [signal, waitMs] of [['SIGINT', 30_000], ['SIGQUIT', 5_000], ['SIGKILL', 5_000]] as const) {
        try {
          process.kill(pid, signal);
        } catch {
          return;
        }
        if (await waitForExit(pid, exited, waitMs)) return;
        log(`embedded PostgreSQL: pid ${pid} still running after ${signal}`);
      }
    })();
    return stopping;
  };
  return { stop, detach };
}

async function waitForExit(pid: number, exited: Promise<void> | undefined, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await Promise.race([sleep(50), exited ?? new Promise(() => {})]);
  }
  return !isAlive(pid);
}
