// Buying in Chromium with JavaScript switched off (docs/storefront.md, "Buying on the storefront"): choose a variant
// and add it from the product page, change the cart, apply a discount code, fill in the checkout form, place the
// order and land on its page. Each page of the way is axe-clean, fits 390 px without horizontal scrolling, and is
// screenshot at 1280 and 390 px (TEST_ARTIFACTS_DIR, default test-artifacts/storefront).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/cli/seed/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { listenForBrowser, openShopper, watchErrors, type Shopper } from './chromium.ts';

let t: TestApp;
let origin: string;
let shopper: Shopper;

beforeAll(async () => {
  t = await createTestApp();
  origin = await listenForBrowser(t.app);
  await seedDemo(t.db);
  shopper = await openShopper(origin);
}, 60_000);
afterAll(async () => {
  await shopper?.close();
  await t?.close();
});

describe('a shopper without JavaScript', () => {
  it.each(['da', 'en'])('buys a variant product with a discount code and sees the order (%s)', async (language) => {
    const key = await t.key();
    okResult(await t.call('settings.update', { language }, key));
    const product = await t.db.product.findFirstOrThrow({
      where: { deletedAt: null, options: { some: {} }, variants: { some: { deletedAt: null, stock: { gt: 2 } } } },
      orderBy: { slug: 'asc' }, include: { variants: { where: { deletedAt: null, stock: { gt: 2 } }, orderBy: { position: 'asc' } } },
    });
    const variant = product.variants.at(-1)!;
    const page = await shopper.browser.context.newPage();
    const errors = watchErrors(page);
    try {
      await page.goto(`${origin}/products/${product.slug}`);
      expect(await page.getAttribute('html', 'lang')).toBe(language);
      await shopper.check(page, `buy-product-${language}`);
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
      await shopper.check(page, `buy-cart-${language}`);

      await page.click('a[href="/checkout"].button');
      expect(new URL(page.url()).pathname).toBe('/checkout');
      await shopper.check(page, `buy-checkout-${language}`);
      await page.fill('#f-email', `nojs-${language}@example.dk`);
      await page.fill('#f-shippingName', 'Astrid Holm');
      await page.fill('#f-shippingAddress', 'Strandvejen 12');
      await page.fill('#f-shippingZip', '6700');
      await page.fill('#f-shippingCity', 'Esbjerg');
      await page.check('#f-terms');
      await page.click('.checkout-form button[type=submit]');

      expect(new URL(page.url()).pathname).toMatch(/^\/orders\/[^/]+\/[A-Za-z0-9_-]{43}$/);
      expect(await page.locator('.notice--ok').count()).toBe(1);
      await shopper.check(page, `buy-order-${language}`);
      const order = await t.db.order.findFirstOrThrow({ where: { email: `nojs-${language}@example.dk` }, include: { items: true } });
      expect(order).toMatchObject({ channel: 'web', isAiGenerated: false, discountCode: 'WELCOME10', status: 'pending_payment' });
      expect(order.items.map((i) => ({ variantId: i.variantId, quantity: i.quantity }))).toEqual([{ variantId: variant.id, quantity: 1n }]);
      expect(await page.textContent('main')).toContain(order.id);
      expect(errors).toEqual([]);
      expect(shopper.browser.foreign).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
