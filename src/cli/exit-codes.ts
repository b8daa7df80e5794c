import { CommanderError } from '@commander-js/extra-typings';
import { AppError } from '../errors.ts';

/** What a script calling the CLI can rely on; printed under "Exit codes:" in every --help. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  notFound: 3,
} as const;

export const EXIT_CODES_HELP = `
Exit codes:
  ${EXIT.ok}  success
  ${EXIT.failure}  failure (database unreachable, unexpected error)
  ${EXIT.usage}  usage error: unknown command or option, missing or invalid value; nothing was changed
  ${EXIT.notFound}  not found: the id names nothing active (e.g. a key already revoked); nothing was changed`;

/** Help that was asked for is a success; help shown because a command was incomplete is a usage error. */
const ASKED_FOR = new Set(['commander.helpDisplayed', 'commander.version']);

export function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) return ASKED_FOR.has(err.code) ? EXIT.ok : EXIT.usage;
  if (err instanceof AppError) return err.code === 'not_found' ? EXIT.notFound : EXIT.usage;
  return EXIT.failure;
}
