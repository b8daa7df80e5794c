import type { Command } from '@commander-js/extra-typings';
import { withPrisma } from '../database.ts';
import { CLI, emit, examples } from '../output.ts';
import { AppError } from '../../errors.ts';

export function registerSeed(program: Command): void {
  program
    .command('seed')
    .description('Fill the database with a data set: the demo store (categories, products, pages, services, discounts, customers and orders), or the UCP conformance flower shop. Idempotent.')
    .option('--demo', 'the demo store')
    .option('--ucp-flower-shop <folder>', 'the UCP conformance suite\'s flower shop, from the folder holding its CSV files (docs/agentic-checkout.md)')
    .option('--json', 'print the number of rows per kind as one JSON line')
    .addHelpText('after', examples(`${CLI} seed --demo`, `${CLI} seed --ucp-flower-shop path/to/flower_shop`))
    .action(async (opts) => {
      // One data set must be named, so nothing is seeded by accident.
      if (Boolean(opts.demo) === Boolean(opts.ucpFlowerShop)) throw new AppError('invalid_request', 'Name one data set: --demo or --ucp-flower-shop <folder>.');
      const folder = opts.ucpFlowerShop;
      const [{ seedDemo }, { seedFlowerShop }] = await Promise.all([import('../seed/index.ts'), import('../seed/flower-shop.ts')]);
      const summary = await withPrisma((db) => (folder ? seedFlowerShop(db, folder) : seedDemo(db)));
      emit(opts.json, summary, () => `${folder ? 'Flower shop' : 'Demo data'} ready: ${Object.entries(summary).map(([k, v]) => `${v} ${k}`).join(', ')}.`);
    });
}
