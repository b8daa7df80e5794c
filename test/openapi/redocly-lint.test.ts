// Redocly CLI (pinned in package.json) lints the generated OpenAPI document with its recommended ruleset
// (redocly.yaml): no errors and no warnings, so tag descriptions, servers and unused components cannot regress.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { buildDocument, withServer } from '../../src/openapi/build-document.ts';
import { buildCheckoutDocument } from '../../src/openapi/checkout-protocols.ts';
import { serializeDocument } from '../../src/openapi/write.ts';
import { TOOLS } from '../../src/tools/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'redocly-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CLI = join(process.cwd(), 'node_modules/@redocly/cli/bin/cli.js');

function lint(doc: unknown): { status: number | null; out: string; stdout: string } {
  const file = join(dir, `openapi-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, serializeDocument(doc));
  const res = spawnSync(process.execPath, [CLI, 'lint', file, '--config', join(process.cwd(), 'redocly.yaml'), '--format=json'], {
    encoding: 'utf8',
    // No telemetry or update check: tests make no outbound calls.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    timeout: 60_000,
  });
  return { status: res.status, stdout: res.stdout, out: `${res.stdout}\n${res.stderr}` };
}

function totals(stdout: string): { errors: number; warnings: number; problems: unknown[] } {
  const json = JSON.parse(stdout) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; message: string }[];
  };
  return { errors: json.totals.errors, warnings: json.totals.warnings, problems: json.problems.map((p) => `${p.ruleId}: ${p.message}`) };
}

it('the committed document (servers "/") has 0 errors and 0 warnings under the recommended ruleset', () => {
  const { status, out, stdout } = lint(buildDocument(TOOLS));
  expect(totals(stdout), out).toEqual({ errors: 0, warnings: 0, problems: [] });
  expect(status).toBe(0);
}, 90_000);

it('the served document (servers = the public origin) has 0 errors and 0 warnings', () => {
  const { status, out, stdout } = lint(withServer(buildDocument(TOOLS), 'https://shop.example.org'));
  expect(totals(stdout), out).toEqual({ errors: 0, warnings: 0, problems: [] });
  expect(status).toBe(0);
}, 90_000);

it('the checkout protocols’ document (/openapi/checkout.json) has 0 errors and 0 warnings', () => {
  const { status, out, stdout } = lint(buildCheckoutDocument());
  expect(totals(stdout), out).toEqual({ errors: 0, warnings: 0, problems: [] });
  expect(status).toBe(0);
}, 90_000);
