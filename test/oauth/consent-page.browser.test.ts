// The operator's consent page in a real browser: headless Chromium (Debian's package) driven by playwright-core.
// It renders without console errors, axe-core finds no serious or critical accessibility violation, a client name
// full of HTML is shown as text, and ticking boxes approves exactly those scopes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSENT } from '../../src/i18n/catalogue.ts';
import { listGrants } from '../../src/oauth/grant-admin.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { authorizationRequest, CALLBACK_URL, registerClient } from './mcp-host.ts';

const HOSTILE_NAME = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> Helpful Agent';
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let t: TestApp;
let base: string;
let browser: Browser;
let clientId: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  clientId = await registerClient(base, HOSTILE_NAME);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the consent page in Chromium', () => {
  it('renders with no console errors, no serious or critical axe violations, and the client’s HTML as text', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    const { url } = authorizationRequest(base, { client_id: clientId, scope: 'catalog:read features:read', resource: `${base}/api/mcp` });
    const res = await page.goto(url.href);
    expect(res?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/interaction\//);

    await expect(page.locator('h1').textContent()).resolves.toContain('127.0.0.1:9');
    await expect(page.locator('main').textContent()).resolves.toContain(HOSTILE_NAME);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.evaluate('typeof window.pwned')).toBe('undefined');

    await page.evaluate(axeSource);
    // The page's CSP allows no script; DevTools evaluation is exempt, which is how axe-core gets in.
    const results = (await page.evaluate(
      'axe.run(document).then((r) => ({ violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help })), passed: r.passes.length }))',
    )) as { violations: { id: string; impact: string | null; help: string }[]; passed: number };
    expect(results.passed).toBeGreaterThan(10);
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    // It names the shop (settings), and on a 390 px phone the card keeps a margin and nothing scrolls sideways.
    await expect(page.locator('h1').textContent()).resolves.toContain('Agent Shop');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const card = (await page.locator('main').boundingBox())!;
    expect(card.x).toBeGreaterThanOrEqual(12);
    expect(card.x + card.width).toBeLessThanOrEqual(390 - 12);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('approves exactly the boxes left ticked, with the operator’s key typed in', async () => {
    const operatorKey = await t.key();
    const page = await browser.newPage();
    let callback: URL | undefined;
    await page.route(`${CALLBACK_URL}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, body: 'done' });
    });
    const { url } = authorizationRequest(base, { client_id: clientId, scope: 'catalog:read features:read features:write', resource: `${base}/api/mcp` });
    await page.goto(url.href);
    // The shop's language is the default, Danish: the page's words are the Danish catalogue's.
    const words = CONSENT.da;
    await page.getByLabel(words.scopes['features:write']).uncheck();
    await page.getByLabel(words.operatorKey).fill(operatorKey);
    await page.getByRole('button', { name: words.approve }).click();
    await page.waitForURL(`${CALLBACK_URL}**`);
    expect(callback?.searchParams.get('code')).toBeTruthy();
    expect(callback?.searchParams.get('iss')).toBe(`${base}/oauth`);
    const [grant] = await listGrants(t.db);
    expect(grant).toMatchObject({ clientId, scopes: ['catalog:read', 'features:read'] });
    await page.close();
  });
});
