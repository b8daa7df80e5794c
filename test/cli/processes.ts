// Runs the CLI and the server as real processes, piped (as a script sees them) or on a pseudo-terminal (as a person
// does), so TTY-dependent behaviour — colours, log format, the start-up banner — is tested as it really happens.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What `npm run cli` runs: the CLI's bundle, rebuilt first when the source changed (scripts/cli.mjs). */
export const CLI_ENTRY = 'scripts/cli.mjs';

export type Run = { code: number; stdout: string; stderr: string };

/** The test runner's environment without the colour switches it may set for itself. */
// The colour settings of the run that starts the tests are not the child's; nor is CI, with which Node counts any
// terminal as two-colour (tty getColorDepth), while these children model a person's terminal.
function baseEnv(): NodeJS.ProcessEnv {
  const { NO_COLOR, FORCE_COLOR, NODE_DISABLE_COLORS, CI, ...rest } = process.env;
  return rest;
}

/** `node scripts/cli.mjs …args` (what `npm run --silent cli -- …` runs) with `env` added; stdout and stderr piped. */
export function cli(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_ENTRY, ...args], { cwd: ROOT, env: { ...baseEnv(), LOG_LEVEL: 'silent', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

export type TerminalProcess = {
  /** Everything written to the terminal so far (stdout and stderr share it; lines end in \r\n). */
  output: () => string;
  /** Resolves once the output satisfies `done`; rejects if the process exits first or after `timeoutMs`. */
  waitFor: (done: (output: string) => boolean, timeoutMs?: number) => Promise<string>;
  /** Types Ctrl-C, as a person would; the terminal sends SIGINT to the program. */
  interrupt: () => void;
  exited: Promise<number | null>;
};

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/**
 * `node …args` in the repository on a pseudo-terminal made by util-linux `script`, so stdin, stdout and stderr are
 * TTYs; `env` adds to the environment (TERM is set so the terminal supports colours unless NO_COLOR says otherwise).
 */
export function inTerminal(args: string[], env: Record<string, string>): TerminalProcess {
  const command = `exec ${[process.execPath, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: { ...baseEnv(), TERM: 'xterm-256color', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = async (done: (output: string) => boolean, timeoutMs = 60_000) => {
    for (const deadline = Date.now() + timeoutMs; !done(output); await new Promise((r) => setTimeout(r, 100))) {
      if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before the expected output:\n${output}`);
      if (Date.now() > deadline) throw new Error(`expected output did not appear within ${timeoutMs / 1000} s:\n${output}`);
    }
    return output;
  };
  return { output: () => output, waitFor, interrupt: () => child.stdin.write('\x03'), exited };
}

/** Runs a CLI command on a terminal to completion. */
export async function cliInTerminal(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const run = inTerminal([CLI_ENTRY, ...args], env);
  const code = await run.exited;
  return { code, output: run.output() };
}

// Any ANSI SGR sequence (colour, bold, dim).
export const ANSI = /\x1b\[[0-9;]*m/;
