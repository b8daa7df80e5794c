// Cleanup: every resource registers its release; run once on success, failure, SIGINT and SIGTERM.
import type { Instance } from 'autocannon';

const cleanups: Array<() => Promise<unknown>> = [];
/** The autocannon run in progress, stopped first on cleanup. */
let current: Instance<unknown> | undefined;
let cleaning: Promise<void> | undefined;
export function cleanup(): Promise<void> {
  return (cleaning ??= (async () => {
    current?.stop();
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup: ${(err as Error).message}`);
      }
    }
  })());
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping, dropping the bench database(s)…`);
    void cleanup().finally(() => process.exit(130));
  });
}

export function registerCleanup(release: () => Promise<unknown>): void {
  cleanups.push(release);
}

export function trackRun(run: Instance<unknown> | undefined): void {
  current = run;
}
