import type { Command } from '@commander-js/extra-typings';
import { AppError } from '../../errors.ts';
import { withDatabase } from '../database.ts';
import { CLI, emit, examples, table } from '../output.ts';

/** The UCP signing keys that sign order webhooks and are published in /.well-known/ucp (docs/agentic-checkout.md). */
const signing = () => import('../../protocols/ucp/signing.ts');

export function registerUcp(program: Command): void {
  const ucp = program
    .command('ucp')
    .description('The UCP checkout protocol: its webhook signing keys (docs/agentic-checkout.md, "Signing keys and rotation").')
    .addHelpText('after', examples(`${CLI} ucp keys`, `${CLI} ucp rotate-key`, `${CLI} ucp retire-key <kid>`));

  ucp
    .command('keys')
    .description('List the published signing keys, newest (the one that signs) first; the first use creates one.')
    .option('--json', 'print [{"kid","createdAt"}] as one JSON line')
    .addHelpText('after', examples(`${CLI} ucp keys`, `${CLI} ucp keys --json`))
    .action(async (opts) => {
      const { signingKeys } = await signing();
      const keys = await withDatabase(async (db, box) => (await signingKeys(db, box)).map((k) => ({ kid: k.kid, createdAt: k.createdAt.toISOString() })));
      emit(opts.json, keys, () => table(['kid', 'created'], keys.map((k) => [{ text: k.kid }, { text: k.createdAt }])));
    });

  ucp
    .command('rotate-key')
    .description('Add a signing key; it signs from now on (within a minute on every instance). Retire the old one once its webhooks are no longer retried.')
    .option('--json', 'print {"kid"} as one JSON line')
    .addHelpText('after', examples(`${CLI} ucp rotate-key`))
    .action(async (opts) => {
      const { addSigningKey, signingKeys } = await signing();
      const kid = await withDatabase(async (db, box) => {
        await signingKeys(db, box);
        return addSigningKey(db, box, new Date());
      });
      emit(opts.json, { kid }, () => `New signing key ${kid}; it is published and signs from now on.`);
    });

  ucp
    .command('retire-key')
    .description('Stop publishing a signing key (never the only one).')
    .argument('<kid>', 'the key id (ucp keys)')
    .option('--json', 'print {"kid","retired"} as one JSON line')
    .addHelpText('after', examples(`${CLI} ucp retire-key ucp_20261127_90e3b9f8`))
    .action(async (kid, opts) => {
      const { retireSigningKey, signingKeys } = await signing();
      await withDatabase(async (db, box) => {
        const keys = await signingKeys(db, box);
        if (keys.length <= 1) throw new AppError('invalid_request', 'The only signing key cannot be retired: rotate first.');
        if (!(await retireSigningKey(db, kid))) throw new AppError('not_found', `No signing key ${kid}.`);
      });
      emit(opts.json, { kid, retired: true }, () => `Signing key ${kid} retired; it is no longer published.`);
    });
}
