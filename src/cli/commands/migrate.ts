import type { Command } from '@commander-js/extra-typings';
import { withDatabase } from '../database.ts';
import { CLI, emit, examples } from '../output.ts';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations (every command does this first; this one does only that).')
    .option('--json', 'print {"migrated":true} as one JSON line')
    .addHelpText('after', examples(`${CLI} migrate`, `DATABASE_URL=postgresql://postgres@127.0.0.1:5432/shop ${CLI} migrate`))
    .action(async (opts) => {
      await withDatabase(async () => {});
      emit(opts.json, { migrated: true }, () => 'Database is migrated.');
    });
}
