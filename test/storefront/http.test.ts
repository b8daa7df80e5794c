// The storefront over HTTP: routes, what is published and what is a 404, caching validators and revalidation,
// security headers, HEAD, the stylesheet, and the JSON 404s that stay under /api/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORY_PAGE_SIZE } from '../../src/services/storefront.ts';
import { STOREFRONT_CSP } from '../../src/storefront/respond.ts';
import type { TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { expectProblem } from '../helpers/problem.ts';
import { get, get as getPage, html, productLinks, seededStorefront } from './helpers.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await seededStorefront());
});
afterAll(() => t?.close());

const PRODUCT = '/products/havblik-aviator';

describe('routes', () => {
  it.each([
    ['/', 'Nordic eyewear, made to be worn'],
    [PRODUCT, 'Havblik Aviator'],
    ['/categories/sunglasses', 'Sunglasses'],
    ['/search?q=aviator', 'Results for “aviator”'],
    ['/info/about', 'About us'],
    ['/info/shipping', 'Shipping and returns'],
    ['/services', 'Services'],
    ['/services/eye-exam', 'Eye exam'],
  ])('GET %s is a page headed %s', async (url, heading) => {
    expect(html(await get(t, url))).toContain(`<h1>${heading}</h1>`);
  });

  it('answers HEAD on every route with the headers of GET and no body', async () => {
    for (const url of ['/', PRODUCT, '/categories/sunglasses', '/search?q=x', '/info/about', '/services', '/services/eye-exam', '/sitemap.xml', '/robots.txt', '/llms.txt', '/info/nope']) {
      // One shopper for both: a product page carries the shopper's form token.
      const cookie = String((await get(t, url)).headers['set-cookie'] ?? '').split(';')[0]!;
      const headers: Record<string, string> = cookie ? { cookie } : {};
      const [g, h] = [await get(t, url, headers), await t.app.inject({ method: 'HEAD', url, headers })];
      expect(h.statusCode, url).toBe(g.statusCode);
      expect(h.body).toBe('');
      expect(h.headers.etag).toBe(g.headers.etag);
      expect(h.headers['content-type']).toBe(g.headers['content-type']);
    }
  });

  it('is a 404 page for drafts, deleted products and unknown slugs, and a 200 once published', async () => {
    okResult(await t.call('products.delete', { slug: 'krabbe-round', confirm: true }, key));
    okResult(await t.call('services.create', { slug: 'night-owl', title: 'Night owl fitting', body: 'After-hours fittings.', status: 'draft' }, key));
    for (const url of ['/info/summer-sale', '/products/krabbe-round', '/products/nope', '/categories/nope', '/info/nope', '/services/night-owl', '/services/nope', '/nope', '/products/havblik-aviator/extra']) {
      const res = await get(t, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      // Not cached anywhere, so publishing shows at once; and a draft looks exactly like nothing at all.
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
      expect(res.body).toContain('<h1>Page not found</h1>');
      expect(res.body).toContain('<meta name="robots" content="noindex"/>');
      expect(res.body).not.toContain('night-owl');
    }
    expect((await get(t, '/info/summer-sale')).body).toBe((await get(t, '/info/nope')).body);
    okResult(await t.call('services.update', { slug: 'night-owl', patch: { status: 'published' } }, key));
    expect(html(await get(t, '/services/night-owl'))).toContain('<h1>Night owl fitting</h1>');
    okResult(await t.call('pages.upsert', { slug: 'summer-sale', title: 'Summer sale', body: 'Thirty percent off, from June 1st.', status: 'published' }, key));
    expect(html(await get(t, '/info/summer-sale'))).toContain('<h1>Summer sale</h1>');
  });

  it('keeps problem+json 404s for the API, well-known paths and clients that ask for JSON', async () => {
    expectProblem(await get(t, '/api/nothing'), 404, 'not_found');
    expectProblem(await get(t, '/.well-known/nothing'), 404, 'not_found');
    expectProblem(await get(t, '/nothing', { accept: 'application/json' }), 404, 'not_found');
    expectProblem(await t.app.inject({ method: 'POST', url: PRODUCT, payload: {} }), 404, 'not_found');
    expect((await get(t, '/nothing', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' })).headers['content-type']).toMatch(/^text\/html/);
  });

  it('lists /services by navOrder, published only; showInNav adds no header link', async () => {
    okResult(await t.call('services.create', { slug: 'first-in-line', title: 'First in line', body: 'Shown first.', navOrder: -5, showInNav: true }, key));
    okResult(await t.call('services.create', { slug: 'hidden-draft', title: 'Hidden draft', body: 'Never listed.', status: 'draft', showInNav: true }, key));
    const page = html(await get(t, '/services'));
    const main = page.slice(page.indexOf('<main'), page.indexOf('</main>'));
    const order = [...main.matchAll(/href="\/services\/([^"]+)"/g)].map((m) => m[1]);
    const listed = okResult<{ slug: string }[]>(await t.call('services.list', { status: 'published' }, key)).map((s) => s.slug);
    expect(order).toEqual(listed);
    expect(order[0]).toBe('first-in-line');
    expect(order).not.toContain('hidden-draft');
    const header = page.slice(page.indexOf('<header'), page.indexOf('</header>'));
    expect(header).not.toContain('/services/');
    expect(header).toContain('href="/services"');
  });
});

describe('category pages', () => {
  beforeAll(async () => {
    okResult(await t.call('categories.upsert', { slug: 'many', name: 'Many frames', description: 'Lots of them.' }, key));
    for (let i = 1; i <= CATEGORY_PAGE_SIZE + 5; i++) {
      okResult(await t.call('products.create', { slug: `many-${i}`, name: `Many ${i}`, description: 'One of many frames.', priceDkk: 10_000 + i, stock: i % 3, categorySlug: 'many' }, key));
    }
  }, 60_000);

  it('pages through the live products newest first, as products.search orders them', async () => {
    const search = okResult<{ slug: string }[]>(await t.call('products.search', { categorySlug: 'many', limit: 100 })).map((p) => p.slug);
    const first = html(await get(t, '/categories/many'));
    const second = html(await get(t, '/categories/many?page=2'));
    expect([...productLinks(first), ...productLinks(second)]).toEqual(search);
    expect(productLinks(first)).toHaveLength(CATEGORY_PAGE_SIZE);
    expect(first).toContain('<link rel="next" href="https://shop.example.com/categories/many?page=2"/>');
    expect(second).toContain('<link rel="prev" href="https://shop.example.com/categories/many"/>');
    expect(second).toContain('<link rel="canonical" href="https://shop.example.com/categories/many?page=2"/>');
    expect(first).toContain('Page 1 of 2');
  });

  it('shows a changed product on the next request (pages are rendered again when their data changes)', async () => {
    expect(html(await get(t, '/categories/many'))).toContain('Many 29');
    okResult(await t.call('products.update', { slug: 'many-29', patch: { name: 'Many renamed' } }, key));
    const page = html(await get(t, '/categories/many'));
    expect(page).toContain('Many renamed');
    expect(page).not.toContain('>Many 29<');
  });

  it.each(['?page=3', '?page=0', '?page=-1', '?page=abc', '?page=1.5', '?page=01'])('is a 404 for %s', async (query) => {
    expect((await get(t, `/categories/many${query}`)).statusCode).toBe(404);
  });

  it('shows an empty category as a page with no products', async () => {
    okResult(await t.call('categories.upsert', { slug: 'empty-shelf', name: 'Empty shelf' }, key));
    expect(html(await get(t, '/categories/empty-shelf'))).toContain('No products to show yet.');
  });
});

describe('search', () => {
  it('shows the results of products.search for q, in its order', async () => {
    for (const q of ['aviator', 'RAY-BAN', 'black', '100%', 'zzz-nothing']) {
      const expected = okResult<{ slug: string }[]>(await t.call('products.search', { q, limit: 48 })).map((p) => p.slug);
      const page = html(await get(t, `/search?q=${encodeURIComponent(q)}`));
      expect(productLinks(page), q).toEqual(expected);
      expect(page).toContain('<meta name="robots" content="noindex"/>');
    }
  });

  it('shows a search form without q, and cuts a q longer than products.search takes', async () => {
    expect(html(await get(t, '/search'))).toContain('<h1>Search the shop</h1>');
    expect(html(await get(t, `/search?q=${'a'.repeat(500)}`))).toContain(`Results for “${'a'.repeat(200)}”`);
  });
});

describe('caching', () => {
  /** One shopper's cookie: the product page is theirs (its form token), so its validators hold per cookie. */
  let shopper: Record<string, string> = {};
  beforeAll(async () => {
    shopper = { cookie: String((await get(t, PRODUCT)).headers['set-cookie']).split(';')[0]! };
  });

  it('sends a strong ETag, Last-Modified of the newest record shown, and the cache policy', async () => {
    const res = await get(t, PRODUCT, shopper);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    // The product page carries the shopper's add-to-cart form token: private (docs/storefront.md, "Buying on the storefront").
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.vary).toBe('Cookie');
    expect((await get(t, '/categories/sunglasses')).headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300');
    const product = await t.db.product.findUniqueOrThrow({ where: { slug: 'havblik-aviator' } });
    expect(Date.parse(String(res.headers['last-modified']))).toBeGreaterThanOrEqual(Math.floor(product.updatedAt.getTime() / 1000) * 1000);
    expect((await get(t, PRODUCT, shopper)).headers.etag).toBe(res.headers.etag);
  });

  it('answers 304 to If-None-Match and If-Modified-Since while current, 200 after a change', async () => {
    const get = (t: TestApp, url: string, headers: Record<string, string> = {}) => getPage(t, url, { ...shopper, ...headers });
    const first = await get(t, PRODUCT);
    const etag = String(first.headers.etag);
    const lastModified = String(first.headers['last-modified']);
    const byTag = await get(t, PRODUCT, { 'if-none-match': etag });
    expect(byTag.statusCode).toBe(304);
    expect(byTag.body).toBe('');
    expect(byTag.headers.etag).toBe(etag);
    expect(byTag.headers['cache-control']).toBe('private, no-cache');
    expect((await get(t, PRODUCT, { 'if-none-match': `"other", ${etag}` })).statusCode).toBe(304);
    expect((await get(t, PRODUCT, { 'if-modified-since': lastModified })).statusCode).toBe(304);
    expect((await t.app.inject({ method: 'HEAD', url: PRODUCT, headers: { ...shopper, 'if-none-match': etag } })).statusCode).toBe(304);

    await new Promise((r) => setTimeout(r, 1_100)); // Last-Modified has whole seconds
    okResult(await t.call('products.update', { slug: 'havblik-aviator', patch: { priceDkk: 45_600 } }, key));
    const changed = await get(t, PRODUCT, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toContain('DKK\u00a0456.00');
    expect(changed.headers.etag).not.toBe(etag);
    expect((await get(t, PRODUCT, { 'if-modified-since': lastModified })).statusCode).toBe(200);
  });

  it('serves the one stylesheet at an immutable content-hashed URL', async () => {
    const page = html(await get(t, '/'));
    const href = /<link rel="stylesheet" href="(\/assets\/storefront\.[0-9a-f]{16}\.css)"\/>/.exec(page)?.[1];
    expect(href).toBeDefined();
    expect(page.match(/rel="stylesheet"/g)).toHaveLength(1);
    const css = await get(t, href!);
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await get(t, href!, { 'if-none-match': String(css.headers.etag) })).statusCode).toBe(304);
    expect((await get(t, '/assets/storefront.0000000000000000.css')).statusCode).toBe(404);
  });
});

describe('headers', () => {
  it('sends the security headers and a CSP without any script source on pages and 404s', async () => {
    for (const url of ['/', PRODUCT, '/nope']) {
      const res = await get(t, url);
      expect(res.headers['content-security-policy']).toBe(STOREFRONT_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    expect(STOREFRONT_CSP).toContain("default-src 'none'");
    expect(STOREFRONT_CSP).toContain("frame-ancestors 'none'");
    expect(STOREFRONT_CSP).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
    // No executable script on any page: JSON-LD data blocks only.
    const page = html(await get(t, PRODUCT));
    expect([...page.matchAll(/<script([^>]*)>/g)].map((m) => m[1])).toEqual(expect.arrayContaining([' type="application/ld+json"']));
    expect(page).not.toMatch(/<script(?! type="application\/ld\+json")/);
    expect(page).not.toMatch(/ style="/);
  });

  it('sends Content-Language and <html lang> from the shop settings', async () => {
    // The demo shop's language (src/cli/seed/index.ts).
    expect((await get(t, '/')).headers['content-language']).toBe('en');
    okResult(await t.call('settings.update', { language: 'en-GB', shopName: 'Brille & Co' }, key));
    const res = await get(t, PRODUCT);
    expect(res.headers['content-language']).toBe('en-GB');
    expect(res.body).toContain('<html lang="en-GB">');
    expect(res.body).toContain('Brille &amp; Co');
    expect(res.body).toMatch(/DKK\u00a0456\.00|DKK 456\.00/);
    okResult(await t.call('settings.update', { language: 'da', shopName: 'Agent Shop' }, key));
    expect(html(await get(t, PRODUCT))).toMatch(/456,00\u00a0kr\./);
    okResult(await t.call('settings.update', { language: 'en' }, key));
  });
});
