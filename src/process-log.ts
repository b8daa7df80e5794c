import { hostname } from 'node:os';

/** pino's numbers for the levels these lines use. */
const LEVELS = { info: 30, error: 50 } as const;

export type ProcessLog = { info: (msg: string) => void; error: (msg: string) => void };

/**
 * The server entry's own lines: the embedded database starting, migrations, a start-up failure, the steps of a
 * shutdown. They come before the service's logger exists or after it is closed, so they are written here, in the
 * logger's format for where stdout goes: on a terminal `[db] …` for a person; otherwise one JSON object per line with
 * the fields of the service's pino lines (level, time, pid, hostname, msg) plus `component`, so a log collector
 * reads a single format. Errors go to stderr, the rest to stdout. They are written whatever LOG_LEVEL says, as
 * they are few and say what the process is doing with its database.
 */
export function processLog(component: 'db' | 'server', stdoutIsTerminal = Boolean(process.stdout.isTTY)): ProcessLog {
  const write = (level: keyof typeof LEVELS, msg: string) => {
    const stream = level === 'error' ? process.stderr : process.stdout;
    stream.write(
      stdoutIsTerminal
        ? `[${component}] ${msg}\n`
        : `${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname: hostname(), component, msg })}\n`,
    );
  };
  return { info: (msg) => write('info', msg), error: (msg) => write('error', msg) };
}
