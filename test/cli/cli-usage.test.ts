// The operator CLI's usage contract, as a script and a person meet it: --help with examples and exit codes on every
// command, usage errors as exit 2 with one line on stderr, "not found" as exit 3, colour only on a terminal.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.ts';
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { createTestDatabase } from '../helpers/database.ts';
import { ANSI, cli, cliInTerminal } from './processes.ts';

const CLI_TIMEOUT = 90_000;

/** Every command and subcommand below `cmd`, with its full name (`keys create`). */
function commandsOf(cmd: Command, prefix: string[] = []): { path: string[]; cmd: Command }[] {
  return cmd.commands.flatMap((sub) => [{ path: [...prefix, sub.name()], cmd: sub }, ...commandsOf(sub, [...prefix, sub.name()])]);
}

function helpOf(cmd: Command): string {
  let text = '';
  cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  cmd.outputHelp();
  return text;
}

/** stderr of a failed command: exactly one line, `error: …`, no stack trace. */
function oneErrorLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.length > 0);
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: \S/);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0];
}

describe('cli --help', () => {
  it('every command and subcommand has a description, examples that use it, and the exit codes', () => {
    const all = commandsOf(buildProgram());
    expect(all.map((c) => c.path.join(' '))).toEqual(expect.arrayContaining(['keys', 'keys create', 'keys list', 'keys revoke', 'keys rotate', 'seed', 'migrate']));
    for (const { path, cmd } of all) {
      const help = helpOf(cmd);
      expect(cmd.description(), path.join(' ')).not.toBe('');
      expect(help, path.join(' ')).toContain(`Usage: npm run --silent cli -- ${path.join(' ')}`);
      const examples = help.split('\nExamples:\n')[1]?.split('\n\n')[0] ?? '';
      expect(examples, `${path.join(' ')} has examples`).toContain(`cli -- ${path.join(' ')}`);
      expect(help, path.join(' ')).toMatch(/Exit codes:\n {2}0 {2}success\n {2}1 {2}failure.*\n {2}2 {2}usage error.*\n {2}3 {2}not found/);
    }
  });

  it('--help prints to stdout and exits 0 without touching a database; an incomplete command shows help and exits 2', async () => {
    // An unreachable database: help must not need one.
    const env = { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' };
    const root = await cli(env, '--help');
    expect(root.code, root.stderr).toBe(0);
    expect(root.stdout).toMatch(/^Usage: npm run --silent cli -- \[options\] \[command\]/);
    expect(root.stdout).toContain('Exit codes:');
    expect(root.stderr).toBe('');

    const sub = await cli(env, 'keys', 'create', '--help');
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('--expires-in <duration>');
    expect(sub.stdout).toContain("KEY=$(npm run --silent cli -- keys create --name me --scopes all --json | node -p 'JSON.parse(require(\"fs\").readFileSync(0)).key')");

    const incomplete = await cli(env, 'keys');
    expect(incomplete.code).toBe(2);
    expect(incomplete.stdout).toBe('');
    expect(incomplete.stderr).toContain('Usage: npm run --silent cli -- keys');
  }, CLI_TIMEOUT);
});

describe('cli errors and exit codes', () => {
  it('usage errors exit 2 with one line on stderr and nothing on stdout', async () => {
    const env = { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' };
    const cases: [string[], RegExp][] = [
      [['keys', 'crate'], /unknown command 'crate'.*create/],
      [['keys', 'create', '--name', 'x'], /required option '--scopes <list>'/],
      [['keys', 'create', '--name', 'x', '--scopes', 'all', '--expires-in', '30 days'], /'30 days' is invalid.*30d/],
      [['keys', 'create', '--name', 'x', '--scopes', 'all', '--expires-at', '2020-01-01'], /not in the future/],
      [['keys', 'create', '--name', 'x', '--scopes', 'all', '--expires-at', '2030-01-01T00:00:00'], /ISO 8601/],
      [['keys', 'create', '--name', 'x', '--scopes', 'all', '--expires-in', '1d', '--expires-at', '2030-01-01'], /cannot be used with/],
      [['keys', 'revoke'], /missing required argument 'id'/],
      [['seed'], /Name one data set: --demo or --ucp-flower-shop/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(env, ...args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stdout).toBe('');
      expect(oneErrorLine(run.stderr)).toMatch(message);
      expect(run.stderr).not.toMatch(ANSI);
    }
  }, 4 * CLI_TIMEOUT);

  it('an unknown scope is a usage error (2) and a missing key is not found (3); an unreachable database is a failure (1)', async () => {
    const database = await createTestDatabase();
    try {
      const env = { DATABASE_URL: database.url };
      const scope = await cli(env, 'keys', 'create', '--name', 'x', '--scopes', 'catalog:read,nope:write');
      expect(scope.code).toBe(2);
      expect(oneErrorLine(scope.stderr)).toContain('nope:write');
      const missing = await cli(env, 'keys', 'revoke', 'AAAAAAAAAAAA');
      expect(missing.code).toBe(3);
      expect(oneErrorLine(missing.stderr)).toBe('error: No active key with id "AAAAAAAAAAAA".');
      expect((await cli(env, 'keys', 'rotate', 'AAAAAAAAAAAA', '--json')).code).toBe(3);
      expect(await database.db.apiKey.count()).toBe(0);
    } finally {
      await database.drop();
    }
    const down = await cli({ DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' }, 'keys', 'list');
    expect(down.code).toBe(1);
    oneErrorLine(down.stderr);
  }, 2 * CLI_TIMEOUT);

  it('colours errors on a terminal, and not under NO_COLOR', async () => {
    const env = { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' };
    const coloured = await cliInTerminal(env, 'keys', 'crate');
    expect(coloured.code).toBe(2);
    expect(coloured.output).toContain('\x1b[31merror:\x1b[39m unknown command');
    const plain = await cliInTerminal({ ...env, NO_COLOR: '1' }, 'keys', 'crate');
    expect(plain.code).toBe(2);
    expect(plain.output).toContain('error: unknown command');
    expect(plain.output).not.toMatch(ANSI);
  }, CLI_TIMEOUT);
});
