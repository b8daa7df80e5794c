// The everyday commands run on plain pg and never load Prisma, whose first query alone costs ~0.45 s of
// WebAssembly start-up (docs/operator.md, "How fast it answers"); `seed`, which writes through Prisma, still does.
// Seen from outside: the CLI runs as a real process with a module hook that reports every Prisma module it loads.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { CLI_ENTRY, ROOT, type Run } from './processes.ts';

const CLI_TIMEOUT = 90_000;

/** Registers a resolve hook that writes `prisma-loaded <url>` to stderr for each module of Prisma's. */
const REPORT_PRISMA = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module';
   register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
     `export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        if (resolved.url.includes('/@prisma/') || resolved.url.includes('/generated/prisma/')) process.stderr.write('prisma-loaded ' + resolved.url + '\\n');
        return resolved;
      }`,
   )}));`,
)}`;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

function run(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', REPORT_PRISMA, CLI_ENTRY, ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const prismaLoads = (r: Run) => r.stderr.split('\n').filter((l) => l.startsWith('prisma-loaded '));

describe('the CLI without Prisma', () => {
  it('keys create, keys list, keys revoke, grants list and ucp keys do their work without loading any of Prisma', async () => {
    const created = await run('keys', 'create', '--name', 'no-prisma', '--scopes', 'catalog:read', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(prismaLoads(created)).toEqual([]);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id } })).name).toBe('no-prisma');

    for (const args of [['keys', 'list', '--json'], ['grants', 'list', '--json'], ['ucp', 'keys', '--json'], ['keys', 'revoke', id, '--json']]) {
      const result = await run(...args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(prismaLoads(result), args.join(' ')).toEqual([]);
    }
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id } })).revokedAt).toBeInstanceOf(Date);
  }, CLI_TIMEOUT);

  it('the hook sees Prisma where it is loaded: seed', async () => {
    const seeded = await run('seed', '--demo', '--json');
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(prismaLoads(seeded).length).toBeGreaterThan(0);
  }, CLI_TIMEOUT);
});
