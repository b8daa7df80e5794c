import type { Db } from '../db/client.ts';
import { escapeHtml } from '../http/docs-page.ts';
import { PATHS } from '../http/paths.ts';
import { pagePath, servicePath } from '../domain/public-paths.ts';
import { liveProductStats, loadCategoryTiles, loadChrome, SITEMAP_MAX_URLS, sitemapProductEntries, sitemapSiteEntries, type SitemapEntry } from '../services/storefront.ts';
import { newestOf } from './format.ts';
import { chromeUpdatedAt } from './outcome.ts';
import { categoryPath, SEARCH_PATH, SERVICES_PATH } from './paths.ts';

// The files crawlers and agents look for at the root: sitemap (sitemaps.org protocol), robots.txt, llms.txt.

export const SITEMAP_PATH = '/sitemap.xml';
/** Product sitemaps when the site has more URLs than one sitemap may list: /sitemaps/products-<n>.xml. */
export const productSitemapPath = (part: number) => `/sitemaps/products-${part}.xml`;

type Entry = { path: string; updatedAt: string | null };
export type TextFile = { body: string; lastModified: string | null };

const iso = (d: Date | string) => new Date(d).toISOString();
const entries = (rows: SitemapEntry[]): Entry[] => rows.map((r) => ({ path: r.path, updatedAt: iso(r.updatedAt) }));

function urlset(base: string, list: readonly Entry[]): string {
  const urls = list.map((e) => `<url><loc>${escapeHtml(base + e.path)}</loc>${e.updatedAt ? `<lastmod>${e.updatedAt}</lastmod>` : ''}</url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

/** The URLs other than products; the front page changes with everything, /services with any service. */
async function siteEntries(db: Db) {
  const [site, products] = await Promise.all([sitemapSiteEntries(db).then(entries), liveProductStats(db)]);
  const newestService = newestOf(site.filter((e) => e.path.startsWith(`${SERVICES_PATH}/`)).map((e) => e.updatedAt));
  const front = { path: '/', updatedAt: newestOf([products.updatedAt, ...site.map((e) => e.updatedAt)]) };
  return { all: [front, { path: SERVICES_PATH, updatedAt: newestService }, ...site], products };
}

/**
 * Every published URL with its lastmod: the front page, /services, pages, services, categories with live products
 * and live products. Up to 50,000 URLs in one file; beyond that a sitemap index of the site file and product files.
 */
export async function sitemap(db: Db, base: string): Promise<TextFile> {
  const { all, products } = await siteEntries(db);
  const lastModified = all[0].updatedAt;
  if (all.length + products.count <= SITEMAP_MAX_URLS) {
    const productEntries = products.count ? entries(await sitemapProductEntries(db, 1)) : [];
    return { body: urlset(base, [...all, ...productEntries]), lastModified };
  }
  const parts = Math.ceil(products.count / SITEMAP_MAX_URLS);
  const files = [{ path: '/sitemaps/site.xml', updatedAt: lastModified }];
  for (let n = 1; n <= parts; n++) files.push({ path: productSitemapPath(n), updatedAt: products.updatedAt });
  const items = files.map((f) => `<sitemap><loc>${escapeHtml(base + f.path)}</loc>${f.updatedAt ? `<lastmod>${f.updatedAt}</lastmod>` : ''}</sitemap>`);
  return {
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items.join('\n')}\n</sitemapindex>\n`,
    lastModified,
  };
}

/** One file of a sitemap index: "site" or "products-<n>"; null when there is no such file. */
export async function sitemapPart(db: Db, base: string, name: string): Promise<TextFile | null> {
  if (name === 'site.xml') {
    const { all } = await siteEntries(db);
    return { body: urlset(base, all), lastModified: all[0].updatedAt };
  }
  const match = /^products-([1-9]\d{0,4})\.xml$/.exec(name);
  if (!match) return null;
  const list = entries(await sitemapProductEntries(db, Number(match[1])));
  if (list.length === 0) return null;
  return { body: urlset(base, list), lastModified: newestOf(list.map((e) => e.updatedAt)) };
}

export function robotsTxt(base: string): TextFile {
  return {
    body: `# Crawl the shop; search results are endless variations of the catalog pages.\nUser-agent: *\nDisallow: ${SEARCH_PATH}\nDisallow: /api/\n\nSitemap: ${base}${SITEMAP_PATH}\n`,
    lastModified: null,
  };
}

/** Markdown link text with the characters that would end it escaped. */
const linkText = (s: string) => s.replace(/[\\[\]]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');

/** llms.txt (llmstxt.org): what the shop is and how an agent should use it — the API, not the HTML. */
export async function llmsTxt(db: Db, base: string): Promise<TextFile> {
  const [{ shop, services, pages }, categories] = await Promise.all([loadChrome(db), loadCategoryTiles(db, [])]);
  const section = (title: string, links: { title: string; path: string }[]) =>
    links.length ? `\n## ${title}\n\n${links.map((l) => `- [${linkText(l.title)}](${base}${l.path})`).join('\n')}\n` : '';
  const body = `# ${linkText(shop.shopName)}

> The online shop of ${linkText(shop.shopName)}. Agents can search the catalog, read products, pages and services, and
> (with an API key) manage the shop through named tools over HTTP or the Model Context Protocol instead of reading
> these HTML pages. Prices are integers in øre (1/100 ${shop.currency}) in the API.

## API

- [OpenAPI 3.1 document](${base}${PATHS.openapi}): every tool as POST ${base}${PATHS.toolPrefix}<tool.name>; catalog and site tools need no key
- [API reference](${base}${PATHS.docs}): the same, as HTML
- [MCP endpoint](${base}${PATHS.mcp}): the same tools over Streamable HTTP; server card at ${base}${PATHS.mcpServerCard}
- [API catalog](${base}${PATHS.apiCatalog}): RFC 9727 linkset of the above

## Checkout for shopping platforms

- [UCP profile](${base}/.well-known/ucp): Universal Commerce Protocol 2026-04-08, checkout sessions at ${base}/ucp/checkout-sessions (REST) and as MCP tools; a key with scope checkout:agent
- [ACP checkout sessions](${base}/acp/checkout_sessions): Agentic Commerce Protocol 2026-04-17; a key with scope checkout:agent
- [Checkout protocols' OpenAPI document](${base}${PATHS.checkoutOpenapi}): both protocols' operations (tags acp and ucp)
${section('Shop', [{ title: 'Front page', path: '/' }, { title: 'Services', path: SERVICES_PATH }, ...categories.map((c) => ({ title: c.name, path: categoryPath(c.slug) }))])}${section(
    'Services',
    services.map((s) => ({ title: s.title, path: servicePath(s.slug) })),
  )}${section(
    'Information',
    pages.map((p) => ({ title: p.title, path: pagePath(p.slug) })),
  )}`;
  return { body, lastModified: newestOf([chromeUpdatedAt({ shop, services, pages }), ...categories.map((c) => c.updatedAt)]) };
}
