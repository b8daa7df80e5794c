import type { Command } from '@commander-js/extra-typings';
import { withDatabase } from '../database.ts';
import { CLI, emit, examples } from '../output.ts';

export function registerOAuth(program: Command): void {
  const oauth = program
    .command('oauth')
    .description('The built-in OAuth authorization server.')
    .addHelpText('after', examples(`${CLI} oauth rotate-keys`, `${CLI} oauth rotate-keys --json`));

  oauth
    .command('rotate-keys')
    .description('Make a new signing key and cookie secret; the previous ones keep verifying, older ones are retired. Instances pick it up within a minute.')
    .option('--json', 'print {"kid","retired"} as one JSON line')
    .addHelpText('after', examples(`${CLI} oauth rotate-keys`))
    .action(async (opts) => {
      const { rotateKeys } = await import('../../oauth/keys.ts');
      const rotated = await withDatabase(rotateKeys);
      emit(opts.json, rotated, () => `New signing key ${rotated.kid}; the previous one still verifies${rotated.retired.length ? `; retired ${rotated.retired.join(', ')}` : ''}.`);
    });
}
