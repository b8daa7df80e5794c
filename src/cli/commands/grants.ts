import type { Command } from '@commander-js/extra-typings';
import { withDatabase } from '../database.ts';
import { CLI, emit, examples, shortTime, table, type Cell } from '../output.ts';

export function registerGrants(program: Command): void {
  const grants = program
    .command('grants')
    .description('List and end what operators approved for OAuth clients (MCP hosts that signed in).')
    .addHelpText('after', examples(`${CLI} grants list`, `${CLI} grants revoke <id>`));

  grants
    .command('list')
    .description('List the active grants: client, the operator key that approved it (id and name), scopes, created, last used.')
    .option('--json', 'print the grants as one JSON array (ISO 8601 times, null when unset)')
    .addHelpText('after', examples(`${CLI} grants list`, `${CLI} grants list --json`))
    .action(async (opts) => {
      const { listGrants } = await import('../../oauth/grant-admin.ts');
      const rows = await withDatabase((db) => listGrants(db));
      emit(opts.json, rows, () =>
        rows.length === 0
          ? 'No active grants. A host gets one when an operator approves it on the consent page.'
          : table(
              ['ID', 'CLIENT', 'KEY', 'SCOPES', 'CREATED', 'LAST USED'],
              rows.map((g): Cell[] => [
                { text: g.id },
                { text: g.clientName ? `${g.clientName} (${g.clientId})` : g.clientId },
                { text: g.apiKeyName ? `${g.apiKeyId} (${g.apiKeyName})` : g.apiKeyId },
                { text: g.scopes.join(',') },
                { text: shortTime(g.createdAt, '') },
                { text: shortTime(g.lastUsedAt, 'never') },
              ]),
            ),
      );
    });

  grants
    .command('revoke')
    .description('End a grant; its tokens stop working within 1 s on every instance. Audited.')
    .argument('<id>', 'the grant id (grants list)')
    .option('--json', 'print {"id","revoked":true} as one JSON line')
    .addHelpText('after', examples(`${CLI} grants revoke 5mK2rQ…`))
    .action(async (id, opts) => {
      const { revokeGrant } = await import('../../oauth/grant-admin.ts');
      await withDatabase((db) => revokeGrant(db, id));
      emit(opts.json, { id, revoked: true }, () => `Revoked grant ${id}; its tokens stop working within 1 s.`);
    });
}
