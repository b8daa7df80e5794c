// The README's "First five minutes" as a newcomer meets it, checked against the README's own text: the server on a
// terminal prints the ready banner the README shows (line for line); then the walkthrough runs as written (bash,
// curl, jq) — seeding, putting a new key into $KEY, a dry run, a price change that products.get and the storefront
// show, and its revert — and every output the README states in a comment, and the storefront prices its
// "Storefront" section states between the change and the revert and after it, are what the commands print.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/processes.ts';
import { inTerminal, ROOT, type TerminalProcess } from './processes.ts';

const README = readFileSync(`${ROOT}/README.md`, 'utf8');
/** The README's text under a `## ` heading, up to the next one. */
const section = (heading: string) => README.split(`\n## ${heading}\n`)[1].split('\n## ')[0];
const bashBlocks = (text: string) => [...text.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);

/** The two shell blocks of "First five minutes": starting the server (with the banner as comments), then the walkthrough. */
function firstFiveMinutes(): { start: string; walkthrough: string } {
  const blocks = bashBlocks(section('First five minutes'));
  expect(blocks).toHaveLength(2);
  return { start: blocks[0], walkthrough: blocks[1] };
}

/** The address the README's banner shows (npm start's default HOST and PORT). */
const README_PORT = '127.0.0.1:3000';
// Intl writes a no-break space between amount and currency; the README an ordinary one.
const plainSpaces = (text: string) => text.replaceAll('\u00a0', ' ');

let database: TestDatabase;
let server: TerminalProcess;
let port: number;
let scratch: string;
beforeAll(async () => {
  database = await createTestDatabase();
  scratch = await mkdtemp(path.join(tmpdir(), 'readme-'));
  port = await freePort();
  // As `npm start` on a fresh clone, but on the test database and a free port: development, no PUBLIC_BASE_URL.
  server = inTerminal(['--import', 'tsx', 'src/server.ts'], {
    DATABASE_URL: database.url, NODE_ENV: 'development', HOST: '127.0.0.1', PORT: String(port), NO_COLOR: '1', LOG_LEVEL: 'warn',
  });
  // The whole banner: it ends with an empty line.
  await server.waitFor((out) => (out.replaceAll('\r\n', '\n').split('Agent API is ready:\n')[1] ?? '').includes('\n\n'), 90_000);
}, 120_000);
afterAll(async () => {
  server?.interrupt();
  await server?.exited;
  await database?.drop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('README first five minutes', () => {
  it('shows the ready banner the README shows, line for line', () => {
    const documented = firstFiveMinutes()
      .start.split('# … Agent API is ready:\n')[1]
      .split('\n')
      .filter((line) => line.startsWith('#   '))
      .map((line) => line.slice(2).replaceAll(README_PORT, `127.0.0.1:${port}`));
    const printed = server.output().replaceAll('\r\n', '\n').split('Agent API is ready:\n')[1].split('\n\n')[0].split('\n');
    expect(printed).toEqual(documented);
  });

  it('runs as written, prints what its comments say, and the storefront shows the prices the README states', async () => {
    const { walkthrough } = firstFiveMinutes();
    const base = `http://127.0.0.1:${port}`;
    // The one line the test adds: the product page between the price change and its revert.
    const between = path.join(scratch, 'between.html');
    const [beforeRevert, revert] = walkthrough.split('# Every write is audited');
    expect(revert, 'the walkthrough has its audit and revert part').toBeDefined();
    const script = `${beforeRevert}curl -s ${base}/products/havblik-aviator > ${between}\n# Every write is audited${revert}`.replaceAll(
      'localhost:3000',
      `127.0.0.1:${port}`,
    );
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('bash', ['-eo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, DATABASE_URL: database.url }, timeout: 120_000 }, (err, out, errOut) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(out), stderr: String(errOut) }),
      ),
    );
    expect(code, stderr + stdout).toBe(0);

    // The seed: "# 36 products in 6 categories, …, 12 orders".
    const seedClaim = /seed --demo +# (\d+) products in (\d+) categories, .*?(\d+) orders/.exec(walkthrough)!;
    const lines = stdout.split('\n');
    expect(lines[0]).toContain(`${seedClaim[2]} categories, ${seedClaim[1]} products`);
    expect(lines[0]).toMatch(new RegExp(`^Demo data ready: .* ${seedClaim[3]} orders\\.$`));

    // The catalog read: "the Havblik Aviator costs 1,299 kr." (amounts in øre).
    const costs = Number(/the Havblik Aviator costs ([\d,]+) kr\./.exec(walkthrough)![1].replace(',', ''));
    const [claimedAfterChange] = /products\.get.*\n.*\| jq \.result\.priceDkk +# (\d+)/.exec(walkthrough)!.slice(1);
    const claimedAfterRevert = Number(/# back to (\d+)/.exec(walkthrough)![1]);
    // In order: the seed summary, the product before, the dry run's price, ok, the price after, the revert's answer
    // followed by the newline the README's `; echo` adds (the answer itself has none).
    expect(stdout).toMatch(
      new RegExp(
        `"priceDkk": ${costs * 100}\\n\\}\\n109900\\ntrue\\n${claimedAfterChange}\\n` +
          '\\{"ok":true,"result":\\{"auditId":"[^"]+","entityType":"product".*"restored":"previous_state"\\}\\}\\n$',
      ),
    );
    const product = await database.db.product.findUniqueOrThrow({ where: { slug: 'havblik-aviator' } });
    expect(product.priceDkk).toBe(BigInt(claimedAfterRevert));
    const keys = await database.db.apiKey.findMany();
    expect(keys).toHaveLength(1);
    expect(keys[0].expiresAt!.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect(await database.db.auditEntry.count({ where: { tool: 'products.update' } })).toBe(1);

    // "Storefront": the product page says one price between the change and the revert, another after it.
    const storefront = section('Storefront');
    const [, betweenPrice, afterPrice] = /products\/havblik-aviator says (.+?);\s+after the revert, (.+?) again\./.exec(storefront.replaceAll('\n', ' '))!;
    const priceOn = (page: string) => plainSpaces(/<p class="price">([^<]+)<\/p>/.exec(page)![1]);
    expect(priceOn(await readFile(between, 'utf8'))).toBe(betweenPrice);
    expect(priceOn(await (await fetch(`${base}/products/havblik-aviator`)).text())).toBe(afterPrice);
  }, 180_000);
});
