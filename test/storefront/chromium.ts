// Headless Chromium for the storefront's browser tests: Debian's chromium driven by playwright-core, a fresh profile
// per run, no network beyond the server under test (images of images.example.com answered with a pixel), axe-core.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

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
