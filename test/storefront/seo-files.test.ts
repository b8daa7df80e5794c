// sitemap.xml (every published URL with lastmod; an index of files beyond 50,000 URLs), robots.txt and llms.txt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { SITEMAP_MAX_URLS } from '../../src/services/storefront.ts';
import type { TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { BASE, get, seededStorefront } from './helpers.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await seededStorefront());
});
afterAll(() => t?.close());

const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
const lastmods = (xml: string) => [...xml.matchAll(/<lastmod>([^<]+)<\/lastmod>/g)].map((m) => m[1]);

describe('/sitemap.xml', () => {
  it('lists every published URL once, each with an ISO lastmod, and no draft or deleted one', async () => {
    okResult(await t.call('products.delete', { slug: 'havblik-aviator', confirm: true }, key));
    const res = await get(t, '/sitemap.xml');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(res.headers.etag).toBeDefined();
    expect(res.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    const urls = locs(res.body);
    const [products, pages, services, categories] = await Promise.all([
      t.db.product.findMany({ where: { deletedAt: null }, select: { slug: true } }),
      t.db.page.findMany({ where: { status: 'published', slug: { not: 'home' } }, select: { slug: true } }),
      t.db.serviceOffering.findMany({ where: { status: 'published' }, select: { slug: true } }),
      t.db.category.findMany({ where: { liveCount: { liveProducts: { gt: 0 } } }, select: { slug: true } }),
    ]);
    const expected = [
      `${BASE}/`,
      `${BASE}/services`,
      ...products.map((p) => `${BASE}/products/${p.slug}`),
      ...pages.map((p) => `${BASE}/info/${p.slug}`),
      ...services.map((s) => `${BASE}/services/${s.slug}`),
      ...categories.map((c) => `${BASE}/categories/${c.slug}`),
    ];
    expect([...urls].sort()).toEqual([...expected].sort());
    expect(urls).not.toContain(`${BASE}/info/summer-sale`);
    expect(urls).not.toContain(`${BASE}/products/havblik-aviator`);
    expect(lastmods(res.body)).toHaveLength(urls.length);
    for (const m of lastmods(res.body)) expect(m).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('becomes an index of files of at most 50,000 URLs beyond that', async () => {
    // Without a category: the category-count trigger would update one row 50,000 times in this transaction.
    await t.db.$executeRaw(Prisma.sql`INSERT INTO "Product" (id, slug, name, description, "priceDkk", stock, "updatedAt")
      SELECT 'bulk-' || n, 'bulk-' || n, 'Bulk ' || n, 'A bulk product for the sitemap test.', 1000, 1, now()
      FROM generate_series(1, ${SITEMAP_MAX_URLS}) n`);
    const index = await get(t, '/sitemap.xml');
    expect(index.body).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(locs(index.body)).toEqual([`${BASE}/sitemaps/site.xml`, `${BASE}/sitemaps/products-1.xml`, `${BASE}/sitemaps/products-2.xml`]);
    const parts = await Promise.all(locs(index.body).map((u) => get(t, u.slice(BASE.length))));
    const counts = parts.map((p) => locs(p.body).length);
    const live = await t.db.product.count({ where: { deletedAt: null } });
    expect(counts[1]).toBe(SITEMAP_MAX_URLS);
    expect(counts[1] + counts[2]).toBe(live);
    expect(locs(parts[0].body)).toContain(`${BASE}/info/about`);
    expect((await get(t, '/sitemaps/products-3.xml')).statusCode).toBe(404);
    expect((await get(t, '/sitemaps/other.xml')).statusCode).toBe(404);
    await t.db.$executeRaw`DELETE FROM "Product" WHERE id LIKE 'bulk-%'`;
  }, 120_000);
});

describe('/robots.txt and /llms.txt', () => {
  it('robots.txt allows the shop, keeps crawlers out of search and the API, and names the sitemap', async () => {
    const res = await get(t, '/robots.txt');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toContain('User-agent: *\nDisallow: /search\nDisallow: /api/\n');
    expect(res.body).toContain(`Sitemap: ${BASE}/sitemap.xml`);
  });

  it('llms.txt points agents to the API, the OpenAPI documents, the MCP endpoint and the checkout protocols, and lists the shop', async () => {
    const res = await get(t, '/llms.txt');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^# Agent Shop\n\n> /);
    for (const link of [`${BASE}/openapi.json`, `${BASE}/docs`, `${BASE}/api/mcp`, `${BASE}/.well-known/api-catalog`, `${BASE}/api/mcp/server-card`, `${BASE}/.well-known/ucp`, `${BASE}/acp/checkout_sessions`, `${BASE}/openapi/checkout.json`, `${BASE}/services/eye-exam`, `${BASE}/info/about`, `${BASE}/categories/sunglasses`]) {
      expect(res.body).toContain(link);
    }
    expect(res.body).not.toContain('summer-sale');
    // Each linked document exists.
    for (const path of ['/openapi.json', '/docs', '/.well-known/api-catalog', '/api/mcp/server-card', '/.well-known/ucp', '/openapi/checkout.json']) expect((await get(t, path)).statusCode, path).toBe(200);
  });
});
