/**
 * Graceful stop on SIGINT/SIGTERM: run `close` once (stop accepting, drain, release resources), then exit 0.
 * Under `npm start` one Ctrl-C arrives twice (from the terminal and forwarded by npm), so repeats within the
 * first seconds are ignored; a signal after that, or a close that exceeds `forceAfterMs`, exits with 1.
 */
export function onShutdownSignal(close: (signal: string) => Promise<void>, opts: { forceAfterMs: number; log: (msg: string) => void }): void {
  let startedAt = 0;
  const handler = (signal: NodeJS.Signals) => {
    if (startedAt > 0) {
      if (Date.now() - startedAt < 2_000) return;
      opts.log(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    startedAt = Date.now();
    setTimeout(() => {
      opts.log(`shutdown took longer than ${opts.forceAfterMs} ms: exiting`);
      process.exit(1);
    }, opts.forceAfterMs).unref();
    close(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        opts.log(`shutdown failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
