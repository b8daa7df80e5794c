// The README's "First five minutes" run as written (bash, curl, jq) against the real server on a test database:
// seeding, putting a new key into $KEY, a dry run, a price change that products.get then shows, and its revert.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startServerProcess, type ServerProcess } from '../helpers/processes.ts';
import { ROOT } from './processes.ts';

/** The second shell block of the section: the one that runs against a started server. */
function firstFiveMinutes(): string {
  const section = readFileSync(`${ROOT}/README.md`, 'utf8').split('## First five minutes')[1].split('\n## ')[0];
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks).toHaveLength(2);
  return blocks[1];
}

let database: TestDatabase;
let server: ServerProcess;
beforeAll(async () => {
  database = await createTestDatabase();
  server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], { DATABASE_URL: database.url, REDIS_URL: undefined });
}, 90_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await database?.drop();
});

describe('README first five minutes', () => {
  it('runs as written and changes the seeded store visibly, then back', async () => {
    const script = firstFiveMinutes().replaceAll('localhost:3000', `127.0.0.1:${server.port}`);
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('bash', ['-eo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, DATABASE_URL: database.url }, timeout: 120_000 }, (err, out, errOut) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(out), stderr: String(errOut) }),
      ),
    );
    expect(code, stderr + stdout).toBe(0);
    // In order: the seed summary, the price before, the dry run's price, ok, the price after, the revert.
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^Demo data ready: .*36 products/);
    expect(stdout).toMatch(/"priceDkk": 129900[\s\S]*\n109900\ntrue\n109900\n\{"ok":true,"result":\{"auditId":"[^"]+","entityType":"product".*"restored":"previous_state"\}\}\n$/);
    const product = await database.db.product.findUniqueOrThrow({ where: { slug: 'havblik-aviator' } });
    expect(product.priceDkk).toBe(129_900n);
    const keys = await database.db.apiKey.findMany();
    expect(keys).toHaveLength(1);
    expect(keys[0].expiresAt!.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect(await database.db.auditEntry.count({ where: { tool: 'products.update' } })).toBe(1);
  }, 180_000);
});
