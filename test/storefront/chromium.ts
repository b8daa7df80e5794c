// Headless Chromium for the storefront's browser tests: Debian's chromium driven by playwright-core, a fresh profile
// per run, no network beyond the server under test (images of images.example.com answered with a pixel), axe-core.
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(process.env.TEST_ARTIFACTS_DIR ?? 'test-artifacts', 'storefront');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** A 1×1 PNG served for every image on images.example.com: the browser has no network. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** The app listening on a free loopback port, and its origin: what the browser opens. */
export async function listenForBrowser(app: { listen: (o: { host: string; port: number }) => Promise<unknown>; server: { address: () => unknown } }): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address !== 'object' || !('port' in address)) throw new Error('not listening on TCP');
  return `http://127.0.0.1:${String(address.port)}`;
}

export type Browsing = {
  context: BrowserContext;
  /** Requests the pages sent anywhere but this server and the image host. */
  foreign: string[];
  close: () => Promise<void>;
};

/**
 * Chromium with a fresh profile (no cache, cookies or state from an earlier run), no network, and images of
 * images.example.com answered with a pixel. `bypassCSP` switches the pages' Content-Security-Policy off, so the XSS
 * test proves the escaping and the sanitizer, not the policy; `javaScriptEnabled: false` browses as a shopper
 * without script.
 */
export async function openBrowser(origin: string, opts: { bypassCSP?: boolean; javaScriptEnabled?: boolean } = {}): Promise<Browsing> {
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), 'storefront-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    bypassCSP: opts.bypassCSP ?? false,
    javaScriptEnabled: opts.javaScriptEnabled ?? true,
  });
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin) return route.continue();
    if (url.hostname === 'images.example.com') return route.fulfill({ contentType: 'image/png', body: PIXEL });
    foreign.push(url.href);
    return route.abort();
  });
  return {
    context,
    foreign,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Console errors and uncaught exceptions of a page, from the moment it is opened. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };

/** axe-core's serious and critical violations on the page as it is now. */
export async function axeViolations(page: Page) {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target) }));
}

/**
 * A page of a shopper's walk checked as issue 30 asks: axe-clean (in `audit`, a twin browser with script, since axe
 * runs as a script; it gets the shopper's cookies), no horizontal scrolling at 390 or 360 px, and screenshots at 1280
 * and 390 px into ARTIFACTS as `<name>-<width>.png`.
 */
export async function checkPage(page: Page, name: string, audit: Browsing): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-1280.png`), fullPage: true });
  await audit.context.addCookies(await page.context().cookies());
  const twin = await audit.context.newPage();
  try {
    await twin.goto(page.url());
    expect(await axeViolations(twin), name).toEqual([]);
  } finally {
    await twin.close();
  }
  for (const width of [390, 360]) {
    await page.setViewportSize({ width, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name}: horizontal scrolling at ${width} px`).toBeLessThanOrEqual(width);
    if (width === 390) await page.screenshot({ path: path.join(ARTIFACTS, `${name}-390.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A shopper's browser without script, and its twin with script that checkPage runs axe-core in. */
export type Shopper = { browser: Browsing; audit: Browsing; check: (page: Page, name: string) => Promise<void>; close: () => Promise<void> };

export async function openShopper(origin: string): Promise<Shopper> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await openBrowser(origin, { javaScriptEnabled: false });
  const audit = await openBrowser(origin);
  return {
    browser,
    audit,
    check: (page, name) => checkPage(page, name, audit),
    close: async () => {
      await browser.close();
      await audit.close();
    },
  };
}
