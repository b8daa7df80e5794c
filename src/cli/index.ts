import { parseArgs } from 'node:util';
import { createKey, listKeys, parseScopes, revokeKey, rotateKey } from '../auth/key-admin.ts';
import { loadConfig } from '../config.ts';
import { createDb, type Db } from '../db/client.ts';
import { openDatabase } from '../db/open-database.ts';
import { AppError } from '../errors.ts';
import { seedDemo } from './seed/index.ts';

const USAGE = `Usage: npm run --silent cli -- <command>
  keys create --name <name> --scopes <csv|all> [--json]
  keys list [--json]
  keys revoke <id>
  keys rotate <id> [--json]
  seed --demo
  migrate`;

type Out = { json: boolean };

async function run(argv: string[], db: Db, out: Out): Promise<void> {
  const [group, action, ...rest] = argv;
  const print = (value: unknown, human: string) => console.log(out.json ? JSON.stringify(value) : human);
  if (group === 'keys' && action === 'create') {
    const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, scopes: { type: 'string' }, json: { type: 'boolean' } } });
    if (!values.name || !values.scopes) throw new AppError('invalid_request', '--name and --scopes are required.');
    const issued = await createKey(db, { name: values.name, scopes: parseScopes(values.scopes) });
    print(issued, `Created key ${issued.id} (${issued.name}) with scopes ${issued.scopes.join(',')}\n${issued.key}\nThe secret is shown only once.`);
  } else if (group === 'keys' && action === 'list') {
    const keys = await listKeys(db);
    print(keys, keys.map((k) => `${k.id}  ${k.name}  ${k.revokedAt ? 'revoked' : 'active'}  ${k.scopes.join(',')}`).join('\n') || 'No keys.');
  } else if (group === 'keys' && action === 'revoke' && rest[0]) {
    await revokeKey(db, rest[0]);
    print({ id: rest[0], revoked: true }, `Revoked ${rest[0]}.`);
  } else if (group === 'keys' && action === 'rotate' && rest[0]) {
    const issued = await rotateKey(db, rest[0]);
    print(issued, `Rotated key ${issued.id}; the old secret no longer works.\n${issued.key}`);
  } else if (group === 'seed' && action === '--demo') {
    const summary = await seedDemo(db);
    print(summary, `Demo data ready: ${Object.entries(summary).map(([k, v]) => `${v} ${k}`).join(', ')}.`);
  } else if (group === 'migrate') {
    print({ migrated: true }, 'Database is migrated.');
  } else {
    throw new AppError('invalid_request', USAGE);
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2).filter((a) => a !== '--');
  const json = argv.includes('--json');
  const config = loadConfig();
  // Diagnostics go to stderr so --json output stays exactly one JSON document on stdout.
  const database = await openDatabase(config, (msg) => console.error(`[db] ${msg}`));
  const db = createDb({ connectionString: database.url, poolMax: 2 });
  try {
    await run(argv.filter((a) => a !== '--json'), db, { json });
    return 0;
  } catch (err) {
    console.error(err instanceof AppError ? err.message : err);
    return err instanceof AppError ? 2 : 1;
  } finally {
    await db.$disconnect();
    await database.stop();
  }
}

process.exitCode = await main();
