import { Option, type Command } from '@commander-js/extra-typings';
import { SCOPES } from '../../registry/scopes.ts';
import { withDatabase } from '../database.ts';
import { expiresAt, expiresIn } from '../expiry.ts';
import { CLI, emit, examples, shortTime, table, type Cell } from '../output.ts';

type KeyState = 'active' | 'revoked' | 'expired';

/** Revocation wins over expiry: it is the operator's deliberate act. Matches what the key store lets through. */
function stateOf(key: { revokedAt: string | null; expiresAt: string | null }, now: number): KeyState {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

const STATE_FORMAT = { active: 'green', revoked: 'red', expired: 'yellow' } as const;

const grantsEndedText = (n: number) => `${n === 1 ? '1 OAuth grant' : `${n} OAuth grants`} it approved ended.`;

const scopesText = (scopes: readonly string[]) => (scopes.length === SCOPES.length && SCOPES.every((s) => scopes.includes(s)) ? 'all' : scopes.join(','));

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('Issue, list, revoke and rotate API keys (the only way keys are issued).')
    .addHelpText('after', examples(`${CLI} keys create --name my-agent --scopes catalog:read,products:write --expires-in 30d`, `${CLI} keys list`));

  keys
    .command('create')
    .description('Issue a key; its secret is printed once and only its hash is stored.')
    .requiredOption('--name <name>', 'a label for the key (who or what uses it)')
    .requiredOption('--scopes <list>', `comma-separated scopes, or "all" (${SCOPES.length}): ${SCOPES.join(', ')}`)
    .addOption(new Option('--expires-in <duration>', 'expire after 90m, 12h, 30d, 8w …').argParser((v) => expiresIn(v)).conflicts('expiresAt'))
    .addOption(new Option('--expires-at <time>', 'expire at an ISO 8601 date-time with offset, or at the start of a date (UTC)').argParser((v) => expiresAt(v)))
    .option('--json', 'print {"id","name","scopes","key"} (plus "expiresAt" when set) as one JSON line')
    .addHelpText(
      'after',
      examples(
        `${CLI} keys create --name storefront-agent --scopes catalog:read,cart:write`,
        `${CLI} keys create --name ci --scopes all --expires-in 30d --json`,
        `${CLI} keys create --name partner --scopes orders:read --expires-at 2027-01-31T12:00:00Z`,
        `KEY=$(${CLI} keys create --name me --scopes all --json | node -p 'JSON.parse(require("fs").readFileSync(0)).key')`,
      ),
    )
    .action(async (opts) => {
      const { createKey, parseScopes } = await import('../../auth/key-admin.ts');
      const scopes = parseScopes(opts.scopes);
      const expiry = opts.expiresIn ?? opts.expiresAt;
      const issued = await withDatabase((db) => createKey(db, { name: opts.name, scopes, expiresAt: expiry }));
      emit(opts.json, expiry ? { ...issued, expiresAt: expiry.toISOString() } : issued, () =>
        [
          `Created key ${issued.id} (${issued.name}) with scopes ${scopesText(issued.scopes)}`,
          ...(expiry ? [`Expires ${shortTime(expiry.toISOString(), '')}.`] : []),
          issued.key,
          'The secret is shown only once.',
        ].join('\n'),
      );
    });

  keys
    .command('list')
    .description('List every key with its state; secrets are never shown.')
    .option('--json', 'print the keys as one JSON array (ISO 8601 times, null when unset)')
    .addHelpText('after', examples(`${CLI} keys list`, `${CLI} keys list --json | node -p 'JSON.parse(require("fs").readFileSync(0)).filter(k => k.state === "active").length'`))
    .action(async (opts) => {
      const now = Date.now();
      const { listKeys } = await import('../../auth/key-admin.ts');
      const rows = (await withDatabase(listKeys)).map((k) => ({ ...k, state: stateOf(k, now) }));
      emit(opts.json, rows, () =>
        rows.length === 0
          ? 'No keys. Create one with: keys create --name <name> --scopes <list>'
          : table(
              ['ID', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES', 'STATE'],
              rows.map((k): Cell[] => [
                { text: k.id },
                { text: k.name },
                { text: scopesText(k.scopes) },
                { text: shortTime(k.createdAt, '') },
                { text: shortTime(k.lastUsedAt, 'never') },
                { text: shortTime(k.expiresAt, 'never') },
                { text: k.state, format: STATE_FORMAT[k.state] },
              ]),
            ),
      );
    });

  keys
    .command('revoke')
    .description('Revoke a key and end the OAuth grants it approved; every instance refuses both within 1 s.')
    .argument('<id>', 'the key id (the part after aak_ and before the next _)')
    .option('--json', 'print {"id","revoked":true,"grantsEnded"} as one JSON line')
    .addHelpText('after', examples(`${CLI} keys revoke 7sKq2VbN9xLe`))
    .action(async (id, opts) => {
      const { revokeKey } = await import('../../auth/key-admin.ts');
      const { grantsEnded } = await withDatabase((db) => revokeKey(db, id));
      emit(opts.json, { id, revoked: true, grantsEnded }, () => `Revoked ${id}. ${grantsEndedText(grantsEnded)}`);
    });

  keys
    .command('rotate')
    .description(
      'Give a key a new secret; the old secret stops working at once (same id, name, scopes and expiry), and so do the OAuth grants it approved.',
    )
    .argument('<id>', 'the key id')
    .option('--json', 'print {"id","name","scopes","key","grantsEnded"} as one JSON line')
    .addHelpText('after', examples(`${CLI} keys rotate 7sKq2VbN9xLe --json`))
    .action(async (id, opts) => {
      const { rotateKey } = await import('../../auth/key-admin.ts');
      const issued = await withDatabase((db) => rotateKey(db, id));
      emit(opts.json, issued, () => `Rotated key ${issued.id}; the old secret no longer works. ${grantsEndedText(issued.grantsEnded)}\n${issued.key}`);
    });
}
