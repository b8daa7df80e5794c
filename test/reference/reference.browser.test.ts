// /docs in a real browser: headless Chromium (Debian's, or CHROMIUM_PATH) driven by playwright-core. The page must
// render the reference from /openapi.json, find a tool by name through its search box, log no console error, and
// make no request to any host but the service itself (every request is recorded, including the search worker's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

let t: TestApp;
let origin: string;
let profile: string;
let context: BrowserContext;
let page: Page;
const requests: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  origin = `http://127.0.0.1:${address.port}`;
  profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
  context.on('request', (r) => requests.push(r.url()));
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await t?.close();
});

describe('/docs in headless Chromium', () => {
  it('renders the reference: title, every tag, an operation with its request body', async () => {
    await page.getByRole('heading', { name: /Agent API/ }).first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    for (const tag of ['products', 'orders', 'checkout', 'audit']) expect(text.toLowerCase()).toContain(tag);
    expect(text).toContain('/api/v1/tools/products.create');
    expect(text).toContain('priceDkk');
    // The event catalogue (OpenAPI webhooks) is part of the reference.
    expect(text).toContain('order.status_changed');
  }, 60_000);

  it('finds a tool by name with its search box', async () => {
    const search = page.getByPlaceholder(/search/i);
    await search.fill('attach_image');
    const results = page.locator('[data-role="search:results"]');
    await results.waitFor({ timeout: 15_000 });
    await expect.poll(async () => results.innerText(), { timeout: 15_000 }).toContain('Attach');
  }, 60_000);

  it('made no request to any other host, and logged no console error', async () => {
    const foreign = requests.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url));
    expect(foreign).toEqual([]);
    expect(requests).toEqual(expect.arrayContaining([`${origin}/docs`, `${origin}/openapi.json`]));
    expect(consoleErrors).toEqual([]);
  });

  it('serves the page with a policy that only lets this origin load scripts', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toMatch(/https?:|unsafe-eval/);
  });
});
