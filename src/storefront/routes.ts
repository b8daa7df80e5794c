import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { baseUrlOf } from '../http/base-url.ts';
import { servicePath } from '../domain/public-paths.ts';
import { loadCategoryPage, loadChrome, loadProductPage, loadServiceList, loadServicePage } from '../services/storefront.ts';
import { pageLanguage } from './messages.ts';
import type { PageOutcome } from './outcome.ts';
import { categoryPath, productPath, SERVICES_PATH } from './paths.ts';
import { createRenderMemo } from './render-memo.ts';
import { bundledImage, IMAGE_ASSETS_PREFIX } from '../assets/images.ts';
import { CSRF_SLOT } from './shopper.ts';
import { registerShopRoutes, type ShopDeps } from './shop-routes.ts';
import { registerProtocolCheckoutRoutes } from './protocol-checkout-routes.ts';
import { categoryPage } from './pages/category.tsx';
import { homePage } from './pages/home.tsx';
import { infoPage } from './pages/info.tsx';
import { renderNotFound } from './pages/not-found.tsx';
import { productPage } from './pages/product.tsx';
import { searchPage } from './pages/search.tsx';
import { servicePage, servicesPage } from './pages/services.tsx';
import { HTML_TYPE, IMMUTABLE_CACHE_CONTROL, PAGE_CACHE_CONTROL, prepare, PRIVATE_PAGE_CACHE_CONTROL, sendCached, sendHtmlNotFound, type CachedBody } from './respond.ts';
import { llmsTxt, robotsTxt, sitemap, SITEMAP_PATH, sitemapPart, type TextFile } from './seo-files.ts';
import { STYLESHEET, STYLESHEET_PATH } from './stylesheet.ts';

export type Storefront = {
  /** Whether a request nobody routed gets the HTML 404 page (browsers) rather than a problem+json (API clients). */
  answersNotFound(req: FastifyRequest): boolean;
  sendNotFound(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
};

/** Paths of machine interfaces: an unknown one there is an API error, answered as problem+json. */
const MACHINE_PREFIXES = ['/api/', '/.well-known/'];
const PAGE_NUMBER = /^[1-9]\d{0,5}$/;

/**
 * The public shop: server-rendered pages of what the API manages (GET, and HEAD through Fastify's automatic HEAD
 * routes), plus the sitemap, robots.txt, llms.txt and the stylesheet. No route needs a key or runs a script.
 */
export function registerStorefront(app: FastifyInstance, deps: ShopDeps): Storefront {
  const { db, config } = deps;
  const shop = registerShopRoutes(app, deps);
  registerProtocolCheckoutRoutes(app, deps);
  const base = (req: FastifyRequest) => baseUrlOf(req, config);
  // Product, category and service pages are functions of their one query's result (see render-memo.ts).
  const memo = createRenderMemo();

  const sendNotFound = async (req: FastifyRequest, reply: FastifyReply) => {
    const chrome = await loadChrome(db);
    return sendHtmlNotFound(reply, renderNotFound(chrome, base(req)), pageLanguage(chrome.shop.language));
  };
  const sendPage = (req: FastifyRequest, reply: FastifyReply, outcome: PageOutcome) =>
    outcome.kind === 'page'
      ? sendCached(req, reply, { content: outcome.content, contentType: HTML_TYPE, cacheControl: PAGE_CACHE_CONTROL, lastModified: outcome.lastModified, language: outcome.language })
      : sendHtmlNotFound(reply, renderNotFound(outcome.chrome, base(req)), pageLanguage(outcome.chrome.shop.language));
  const sendFile = (req: FastifyRequest, reply: FastifyReply, contentType: string, file: TextFile | null) =>
    file ? sendCached(req, reply, { content: prepare(file.body), lastModified: file.lastModified, contentType, cacheControl: PAGE_CACHE_CONTROL }) : sendNotFound(req, reply);

  const slugOf = (req: FastifyRequest) => (req.params as { slug: string }).slug;
  const queryOf = (req: FastifyRequest, name: string) => {
    const value = (req.query as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };

  app.get('/', async (req, reply) => sendPage(req, reply, await homePage(db, base(req))));
  // The product page carries the add-to-cart form, whose token is the shopper's: rendered once (memoized) with a
  // slot for it, sent privately with the slot filled.
  app.get('/products/:slug', async (req, reply) => {
    const data = await loadProductPage(db, slugOf(req));
    const outcome = await memo(`${base(req)}${productPath(slugOf(req))}`, data.dataText, () => productPage(data, base(req)));
    if (outcome.kind !== 'page') return sendPage(req, reply, outcome);
    const who = await shop.shopper(req, reply);
    const content = prepare(outcome.content.bytes.toString().replaceAll(CSRF_SLOT, who.csrf));
    return sendCached(req, reply, { ...outcome, content, contentType: HTML_TYPE, cacheControl: PRIVATE_PAGE_CACHE_CONTROL, vary: 'Cookie' });
  });
  app.get('/categories/:slug', async (req, reply) => {
    const raw = queryOf(req, 'page') ?? '1';
    if (!PAGE_NUMBER.test(raw)) return sendNotFound(req, reply);
    const data = await loadCategoryPage(db, slugOf(req), Number(raw));
    return sendPage(req, reply, await memo(`${base(req)}${categoryPath(slugOf(req), Number(raw))}`, data.dataText, () => categoryPage(data, base(req), Number(raw))));
  });
  app.get('/search', async (req, reply) => sendPage(req, reply, await searchPage(db, base(req), queryOf(req, 'q') ?? '')));
  app.get('/info/:slug', async (req, reply) => sendPage(req, reply, await infoPage(db, base(req), slugOf(req))));
  app.get(SERVICES_PATH, async (req, reply) => {
    const data = await loadServiceList(db);
    return sendPage(req, reply, await memo(`${base(req)}${SERVICES_PATH}`, data.dataText, () => servicesPage(data, base(req))));
  });
  app.get('/services/:slug', async (req, reply) => {
    const data = await loadServicePage(db, slugOf(req));
    return sendPage(req, reply, await memo(`${base(req)}${servicePath(slugOf(req))}`, data.dataText, () => servicePage(data, base(req))));
  });

  // The bundled pictures (src/assets/images.ts): the path carries the hash of the bytes, so cached for a year.
  const images = new Map<string, CachedBody>();
  app.get(`${IMAGE_ASSETS_PREFIX}:file`, async (req, reply) => {
    const path = req.url.split('?')[0]!;
    const asset = bundledImage(path);
    if (!asset) return sendNotFound(req, reply);
    let body = images.get(path);
    if (!body) images.set(path, (body = { content: prepare(asset.body), contentType: asset.contentType, cacheControl: IMMUTABLE_CACHE_CONTROL, lastModified: null }));
    return sendCached(req, reply, body);
  });

  const stylesheet: CachedBody = { content: prepare(STYLESHEET), contentType: 'text/css; charset=utf-8', cacheControl: IMMUTABLE_CACHE_CONTROL, lastModified: null };
  app.get(STYLESHEET_PATH, async (req, reply) => sendCached(req, reply, stylesheet));

  const XML = 'application/xml; charset=utf-8';
  const TEXT = 'text/plain; charset=utf-8';
  app.get(SITEMAP_PATH, async (req, reply) => sendFile(req, reply, XML, await sitemap(db, base(req))));
  app.get('/sitemaps/:file', async (req, reply) => sendFile(req, reply, XML, await sitemapPart(db, base(req), (req.params as { file: string }).file)));
  app.get('/robots.txt', async (req, reply) => sendFile(req, reply, TEXT, robotsTxt(base(req))));
  app.get('/llms.txt', async (req, reply) => sendFile(req, reply, TEXT, await llmsTxt(db, base(req))));

  return {
    answersNotFound(req) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const path = req.url.split('?')[0];
      if (path === '/api' || MACHINE_PREFIXES.some((p) => path.startsWith(p))) return false;
      // A client that asks for JSON and not HTML is a program: it gets the problem document it can parse.
      const accept = req.headers.accept ?? '';
      return !(/json/.test(accept) && !/text\/html|\*\/\*/.test(accept));
    },
    sendNotFound,
  };
}
