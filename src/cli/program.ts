import { Command, CommanderError } from '@commander-js/extra-typings';
import { registerGrants } from './commands/grants.ts';
import { registerKeys } from './commands/keys.ts';
import { registerMigrate } from './commands/migrate.ts';
import { registerOAuth } from './commands/oauth.ts';
import { registerSecrets } from './commands/secrets.ts';
import { registerSeed } from './commands/seed.ts';
import { registerUcp } from './commands/ucp.ts';
import { EXIT_CODES_HELP, exitCodeOf } from './exit-codes.ts';
import { CLI, examples, printError } from './output.ts';

/**
 * One command group per file; a new group is one file plus one line here. An action imports the services it calls
 * inside itself (`await import(…)`, as withDatabase does with pg), so --help and usage errors load only the
 * command declarations: the CLI's bundle puts each such import in a chunk of its own (scripts/build.mjs).
 */
const GROUPS = [registerKeys, registerGrants, registerOAuth, registerSecrets, registerUcp, registerSeed, registerMigrate];

/**
 * The operator CLI. Settings made on the root before the groups are registered (output, exit override) are
 * inherited by every command created with .command(), so each group file only declares its commands.
 */
export function buildProgram(): Command {
  const program = new Command()
    .name(CLI)
    .description('Operate an Agent API installation: API keys, OAuth grants, stored secrets, demo data, migrations.')
    .configureOutput({ outputError: (message) => printError(message) })
    .exitOverride()
    .showSuggestionAfterError()
    .addHelpText('after', examples(`${CLI} keys create --name my-agent --scopes catalog:read --json`, `${CLI} keys list`, `${CLI} seed --demo`, `${CLI} keys create --help`))
    .addHelpText(
      'after',
      '\nEnvironment:\n  DATABASE_URL  PostgreSQL to use; unset: the embedded one under DATA_DIR (default .data), shared with `npm start`\n  SECRETS_KEY   the key stored secrets are sealed with (the same as the server); unset: DATA_DIR/secrets.key (not in production)\n  NO_COLOR      no colours (colours are only ever used on a terminal)',
    )
    .addHelpText('afterAll', EXIT_CODES_HELP);
  for (const register of GROUPS) register(program);
  return program;
}

/** Runs one command line; resolves to the process exit code and never throws. */
export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    const code = exitCodeOf(err);
    // Commander has already printed its own errors and the help; everything else is printed here, once.
    if (!(err instanceof CommanderError)) printError(err instanceof Error ? err.message : String(err));
    return code;
  }
}
