// Buying in Chromium with JavaScript switched off (docs/storefront.md, "Buying on the storefront"): choose a variant
// and add it from the product page, change the cart, apply a discount code, fill in the checkout form, place the
// order and land on its page. Each page of the way is axe-clean, fits 390 px without horizontal scrolling, and is
// screenshot at 1280 and 390 px (TEST_ARTIFACTS_DIR, default test-artifacts/storefront).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/cli/seed/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { ARTIFACTS, axeViolations, openBrowser, watchErrors, type Browsing, listenForBrowser } from './chromium.ts';

let t: TestApp;
let origin: string;
let b: Browsing;
/** A second browser, with script, for axe-core (it runs as a script): it opens the same pages with the shopper's cookie. */
let audit: Browsing;

beforeAll(async () => {
  t = await createTestApp();
  origin = await listenForBrowser(t.app);
  await seedDemo(t.db);
  mkdirSync(ARTIFACTS, { recursive: true });
  b = await openBrowser(origin, { javaScriptEnabled: false });
  audit = await openBrowser(origin);
}, 60_000);
afterAll(async () => {
  await b?.close();
  await audit?.close();
  await t?.close();
});

/** axe-clean (checked in the twin with script), no horizontal scrolling at 390 or 360 px, and screenshots at 1280 and 390 px. */
async function check(page: Page, name: string) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-1280.png`), fullPage: true });
  await audit.context.addCookies(await b.context.cookies());
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

describe('a shopper without JavaScript', () => {
  it.each(['da', 'en'])('buys a variant product with a discount code and sees the order (%s)', async (language) => {
    const key = await t.key();
    okResult(await t.call('settings.update', { language }, key));
    const product = await t.db.product.findFirstOrThrow({
      where: { deletedAt: null, options: { some: {} }, variants: { some: { deletedAt: null, stock: { gt: 2 } } } },
      orderBy: { slug: 'asc' }, include: { variants: { where: { deletedAt: null, stock: { gt: 2 } }, orderBy: { position: 'asc' } } },
    });
    const variant = product.variants.at(-1)!;
    const page = await b.context.newPage();
    const errors = watchErrors(page);
    try {
      await page.goto(`${origin}/products/${product.slug}`);
      expect(await page.getAttribute('html', 'lang')).toBe(language);
      await check(page, `buy-product-${language}`);
      await page.selectOption('#buy-variant', variant.id);
      await page.fill('#buy-quantity', '2');
      await page.click('form.buy button[type=submit]');
      expect(new URL(page.url()).pathname).toBe('/cart');
      expect(await page.locator('.cart-line').count()).toBe(1);
      expect(await page.inputValue('.cart-line input[name=quantity]')).toBe('2');

      await page.fill('.cart-line input[name=quantity]', '1');
      await page.click('.cart-line button:not([name])');
      expect(await page.inputValue('.cart-line input[name=quantity]')).toBe('1');
      await page.fill('#discount-code', 'WELCOME10');
      await page.click('.discount-form button');
      expect(await page.textContent('.discount-form strong')).toBe('WELCOME10');
      await check(page, `buy-cart-${language}`);

      await page.click('a[href="/checkout"].button');
      expect(new URL(page.url()).pathname).toBe('/checkout');
      await check(page, `buy-checkout-${language}`);
      await page.fill('#f-email', `nojs-${language}@example.dk`);
      await page.fill('#f-shippingName', 'Astrid Holm');
      await page.fill('#f-shippingAddress', 'Strandvejen 12');
      await page.fill('#f-shippingZip', '6700');
      await page.fill('#f-shippingCity', 'Esbjerg');
      await page.check('#f-terms');
      await page.click('.checkout-form button[type=submit]');

      expect(new URL(page.url()).pathname).toMatch(/^\/orders\/[^/]+\/[A-Za-z0-9_-]{43}$/);
      expect(await page.locator('.notice--ok').count()).toBe(1);
      await check(page, `buy-order-${language}`);
      const order = await t.db.order.findFirstOrThrow({ where: { email: `nojs-${language}@example.dk` }, include: { items: true } });
      expect(order).toMatchObject({ channel: 'web', isAiGenerated: false, discountCode: 'WELCOME10', status: 'pending_payment' });
      expect(order.items.map((i) => ({ variantId: i.variantId, quantity: i.quantity }))).toEqual([{ variantId: variant.id, quantity: 1n }]);
      expect(await page.textContent('main')).toContain(order.id);
      expect(errors).toEqual([]);
      expect(b.foreign).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
