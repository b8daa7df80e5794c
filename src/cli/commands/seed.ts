import type { Command } from '@commander-js/extra-typings';
import { withDatabase } from '../database.ts';
import { CLI, emit, examples } from '../output.ts';
import { seedDemo } from '../seed/index.ts';

export function registerSeed(program: Command): void {
  program
    .command('seed')
    .description('Fill the database with the demo store: categories, products, pages, services, discounts, customers and orders. Idempotent.')
    .requiredOption('--demo', 'the demo store (the only data set there is; required so nothing is seeded by accident)')
    .option('--json', 'print the number of rows per kind as one JSON line')
    .addHelpText('after', examples(`${CLI} seed --demo`))
    .action(async (opts) => {
      const summary = await withDatabase(seedDemo);
      emit(opts.json, summary, () => `Demo data ready: ${Object.entries(summary).map(([k, v]) => `${v} ${k}`).join(', ')}.`);
    });
}
