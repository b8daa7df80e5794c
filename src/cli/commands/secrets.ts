import type { Command } from '@commander-js/extra-typings';
import { withDatabase } from '../database.ts';
import { CLI, emit, examples, table } from '../output.ts';

export function registerSecrets(program: Command): void {
  const secrets = program
    .command('secrets')
    .description('The secrets kept in the database, encrypted with SECRETS_KEY (docs/operator.md, "Secrets").')
    .addHelpText('after', examples(`SECRETS_KEY=<new> SECRETS_KEY_PREVIOUS=<old> ${CLI} secrets reencrypt`));

  secrets
    .command('reencrypt')
    .description(
      'Seal every stored secret again under SECRETS_KEY (those sealed under SECRETS_KEY_PREVIOUS, or not sealed yet); ' +
        'afterwards SECRETS_KEY_PREVIOUS can be dropped. Changes nothing if a secret opens with neither key.',
    )
    .option('--json', 'print {"kid","places":[{"name","stored","sealed","changedMeanwhile"}]} as one JSON line')
    .addHelpText('after', examples(`SECRETS_KEY=<new> SECRETS_KEY_PREVIOUS=<old> ${CLI} secrets reencrypt`, `${CLI} secrets reencrypt --json`))
    .action(async (opts) => {
      const { sealStoredSecrets } = await import('../../secrets/stored-secrets.ts');
      const result = await withDatabase(async (db, box) => ({ kid: box.kid, places: await sealStoredSecrets(db, box, 'stale') }));
      emit(opts.json, result, () => {
        const sealed = result.places.reduce((n, p) => n + p.sealed, 0);
        const changed = result.places.reduce((n, p) => n + p.changedMeanwhile, 0);
        const rows = result.places.map((p) => [{ text: p.name }, { text: String(p.stored) }, { text: String(p.sealed) }, { text: String(p.changedMeanwhile) }]);
        const outcome = changed > 0 ? `${changed} changed while this ran: run it again to check them` : `every stored secret is sealed under key id ${result.kid}`;
        return `${table(['secrets', 'stored', 'sealed again', 'changed meanwhile'], rows)}\n${sealed} sealed again; ${outcome}.`;
      });
    });
}
