import { queryRows, type Db } from '../db/client.ts';
import { rowCount } from '../db/sql-literal.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { searchProducts } from './products.ts';
import { loadSettings } from './settings.ts';

// The storefront's reads: published content only, each page in one round trip where the bench measures it (the page
// query carries the header/footer data as one JSON column). Timestamps inside JSON columns come back as strings.

/** A link in the header or footer, with the timestamp that feeds the page's Last-Modified. */
export type NavLink = { slug: string; title: string; updatedAt: string };
export type ShopInfo = { shopName: string; currency: string; language: string; updatedAt: string };
/** What every page shows around its content: shop name and language, service and page links. */
export type Chrome = { shop: ShopInfo; services: NavLink[]; pages: NavLink[] };

/** The product card of grids and search results. */
export type ProductCard = {
  slug: string;
  name: string;
  brand: string | null;
  /** Price in øre as a decimal integer string (exact for every amount the API accepts). */
  priceOere: string;
  inStock: boolean;
  firstImage: string | null;
};

export type ProductPageData = ProductCard & {
  id: string;
  description: string;
  images: string[];
  frameColor: string | null;
  lensColor: string | null;
  attributes: Record<string, string> | null;
  answerSummary: string | null;
  faq: { q: string; a: string }[] | null;
  useCases: { title: string; description: string }[] | null;
  comparisonFacts: Record<string, string> | null;
  updatedAt: string;
  category: { slug: string; name: string; updatedAt: string } | null;
  /** The product's options in order; empty for a product sold in one form. */
  options: { name: string; values: string[] }[];
  /** Its live variants by position: one value per option, price in øre as text, whether it can be bought now. */
  variants: { id: string; sku: string | null; optionValues: string[]; priceOere: string; available: boolean }[];
  /** The newest change of a variant (deleted ones included): the page changes with it. */
  variantsUpdatedAt: string | null;
};

export type PageRecord = { slug: string; title: string; body: string; layout: unknown; vibeHtml: string | null; updatedAt: string };
export type ServiceRecord = {
  slug: string;
  title: string;
  body: string;
  shortDescription: string | null;
  priceString: string | null;
  heroImage: string | null;
  features: string[];
  updatedAt: string;
};
export type CategoryTile = { slug: string; name: string; description: string | null; liveProducts: number; updatedAt: string };

/** The page whose layout or body is the storefront's front page when it is published. */
export const HOME_PAGE_SLUG = 'home';
/** Products per category page. */
export const CATEGORY_PAGE_SIZE = 24;

const NAV_SERVICES = 20;
const FOOTER_PAGES = 30;

const PUBLISHED = Prisma.sql`'published'`;

const CHROME = Prisma.sql`json_build_object(
  'shop', (SELECT json_build_object('shopName', s."shopName", 'currency', s.currency, 'language', s.language, 'updatedAt', s."updatedAt")
           FROM "ShopSettings" s WHERE s.id = 1),
  'services', COALESCE((SELECT json_agg(json_build_object('slug', x.slug, 'title', x.title, 'updatedAt', x."updatedAt") ORDER BY x."navOrder", x."createdAt", x.id)
           FROM (SELECT slug, title, "updatedAt", "navOrder", "createdAt", id FROM "ServiceOffering" WHERE status = ${PUBLISHED}
                 ORDER BY "navOrder", "createdAt", id LIMIT ${NAV_SERVICES}) x), '[]'),
  'pages', COALESCE((SELECT json_agg(json_build_object('slug', x.slug, 'title', x.title, 'updatedAt', x."updatedAt") ORDER BY x.title, x.slug)
           FROM (SELECT slug, title, "updatedAt" FROM "Page" WHERE status = ${PUBLISHED} AND slug <> ${HOME_PAGE_SLUG}
                 ORDER BY title, slug LIMIT ${FOOTER_PAGES}) x), '[]')
)`;

type ChromeColumn = Omit<Chrome, 'shop'> & { shop: ShopInfo | null };

/** The settings row is created on first use (see loadSettings); a page read on a fresh database creates it too. */
async function completeChrome(db: Db, chrome: ChromeColumn): Promise<Chrome> {
  if (chrome.shop) return { ...chrome, shop: chrome.shop };
  const s = await loadSettings(db);
  return { ...chrome, shop: { shopName: s.shopName, currency: s.currency, language: s.language, updatedAt: s.updatedAt.toISOString() } };
}

/** A page's data, and the JSON text PostgreSQL built it from: equal texts mean equal data (see render-memo.ts). */
export type PageData<T> = T & { chrome: Chrome; dataText: string };

/** One row: the chrome plus the page's own content columns (each a JSON value, null when nothing is published). */
async function pageQuery<T extends Record<string, unknown>>(db: Db, content: Prisma.Sql, prepareAs?: string): Promise<PageData<T>> {
  const [row] = await queryRows<{ data: string }>(db, Prisma.sql`SELECT row_to_json(d)::text AS data FROM (SELECT ${CHROME} AS chrome, ${content}) d`, { prepareAs });
  const value: T & { chrome: ChromeColumn } = JSON.parse(row.data);
  return { ...value, chrome: await completeChrome(db, value.chrome), dataText: row.data };
}

export async function loadChrome(db: Db): Promise<Chrome> {
  return (await pageQuery<{ none: null }>(db, Prisma.sql`NULL AS none`, 'storefront_chrome')).chrome;
}

const CARD_FIELDS = Prisma.sql`'slug', p.slug, 'name', p.name, 'brand', p.brand, 'priceOere', p."priceDkk"::text, 'inStock', p.stock > 0, 'firstImage', p.images[1]`;

export type ProductPage = PageData<{ product: ProductPageData | null }>;
export function loadProductPage(db: Db, slug: string): Promise<ProductPage> {
  return pageQuery<{ product: ProductPageData | null }>(
    db,
    Prisma.sql`(SELECT json_build_object(${CARD_FIELDS}, 'id', p.id, 'description', p.description, 'images', p.images,
        'frameColor', p."frameColor", 'lensColor', p."lensColor", 'attributes', p.attributes, 'answerSummary', p."answerSummary",
        'faq', p.faq, 'useCases', p."useCases", 'comparisonFacts', p."comparisonFacts", 'updatedAt', p."updatedAt",
        'category', CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('slug', c.slug, 'name', c.name, 'updatedAt', c."updatedAt") END,
        'options', COALESCE((SELECT json_agg(json_build_object('name', o.name, 'values', o."values") ORDER BY o.position)
                             FROM "ProductOption" o WHERE o."productId" = p.id), '[]'),
        'variants', COALESCE((SELECT json_agg(json_build_object('id', v.id, 'sku', v.sku, 'optionValues', v."optionValues",
                                'priceOere', v."priceDkk"::text, 'available', v.stock > 0 OR NOT v."trackStock" OR v."allowBackorder")
                              ORDER BY v.position, v.id)
                              FROM "ProductVariant" v WHERE v."productId" = p.id AND v."deletedAt" IS NULL), '[]'),
        'variantsUpdatedAt', (SELECT max(v."updatedAt") FROM "ProductVariant" v WHERE v."productId" = p.id))
      FROM "Product" p LEFT JOIN "Category" c ON c.id = p."categoryId"
      WHERE p.slug = ${slug} AND p."deletedAt" IS NULL) AS product`,
    'storefront_product',
  );
}

/**
 * One page of a category's live products, newest first (the order of products.search), with the category and its
 * live-product count (trigger-maintained, so the page count costs one row).
 */
export type CategoryPage = PageData<{ category: CategoryTile | null; products: (ProductCard & { updatedAt: string })[] }>;
export function loadCategoryPage(db: Db, slug: string, page: number): Promise<CategoryPage> {
  // A LIMIT or OFFSET parameter makes PostgreSQL's generic plan look ten times dearer than a custom one (it assumes
  // a tenth of the rows), so the prepared statement was planned again on every call: 1 ms of planning, measured
  // (pg_prepared_statements: 0 generic plans). The page size is written into the SQL, and the first page, nearly
  // every visit, is a prepared statement without OFFSET; later pages are planned per call.
  const offset = (page - 1) * CATEGORY_PAGE_SIZE;
  return pageQuery<{ category: CategoryTile | null; products: (ProductCard & { updatedAt: string })[] }>(
    db,
    Prisma.sql`(SELECT json_build_object('slug', c.slug, 'name', c.name, 'description', c.description, 'updatedAt', c."updatedAt",
                 'liveProducts', COALESCE(n."liveProducts", 0))
       FROM "Category" c LEFT JOIN "CategoryProductCount" n ON n."categoryId" = c.id WHERE c.slug = ${slug}) AS category,
     COALESCE((SELECT json_agg(json_build_object(${CARD_FIELDS}, 'updatedAt', p."updatedAt") ORDER BY p."createdAt" DESC, p.id DESC)
       FROM (SELECT slug, name, brand, "priceDkk", stock, images, "updatedAt", "createdAt", id FROM "Product" WHERE "categoryId" = (SELECT id FROM "Category" WHERE slug = ${slug}) AND "deletedAt" IS NULL
             ORDER BY "createdAt" DESC, id DESC LIMIT ${rowCount(CATEGORY_PAGE_SIZE)} ${offset === 0 ? Prisma.empty : Prisma.sql`OFFSET ${offset}`}) p), '[]') AS products`,
    offset === 0 ? 'storefront_category' : undefined,
  );
}

const PAGE_FIELDS = Prisma.sql`'slug', g.slug, 'title', g.title, 'body', g.body, 'layout', g.layout, 'vibeHtml', g."vibeHtml", 'updatedAt', g."updatedAt"`;

export function loadInfoPage(db: Db, slug: string) {
  return pageQuery<{ page: PageRecord | null }>(
    db,
    Prisma.sql`(SELECT json_build_object(${PAGE_FIELDS}) FROM "Page" g WHERE g.slug = ${slug} AND g.status = ${PUBLISHED}) AS page`,
    'storefront_info',
  );
}

const SERVICE_FIELDS = Prisma.sql`'slug', v.slug, 'title', v.title, 'body', v.body, 'shortDescription', v."shortDescription",
  'priceString', v."priceString", 'heroImage', v."heroImage", 'features', v.features, 'updatedAt', v."updatedAt"`;
const PUBLISHED_SERVICES = Prisma.sql`COALESCE((SELECT json_agg(json_build_object(${SERVICE_FIELDS}) ORDER BY v."navOrder", v."createdAt", v.id)
  FROM "ServiceOffering" v WHERE v.status = ${PUBLISHED}), '[]')`;

export type ServiceListPage = PageData<{ services: ServiceRecord[] }>;
export function loadServiceList(db: Db): Promise<ServiceListPage> {
  return pageQuery<{ services: ServiceRecord[] }>(db, Prisma.sql`${PUBLISHED_SERVICES} AS services`, 'storefront_services');
}

export type ServicePage = PageData<{ service: ServiceRecord | null }>;
export function loadServicePage(db: Db, slug: string): Promise<ServicePage> {
  return pageQuery<{ service: ServiceRecord | null }>(
    db,
    Prisma.sql`(SELECT json_build_object(${SERVICE_FIELDS}) FROM "ServiceOffering" v WHERE v.slug = ${slug} AND v.status = ${PUBLISHED}) AS service`,
    'storefront_service',
  );
}

const CATEGORY_TILE = Prisma.sql`json_build_object('slug', c.slug, 'name', c.name, 'description', c.description, 'updatedAt', c."updatedAt",
  'liveProducts', COALESCE(n."liveProducts", 0))`;

/** The front page: a published "home" page when there is one, else the categories with live products and the services. */
export function loadHome(db: Db) {
  return pageQuery<{ page: PageRecord | null; categories: CategoryTile[]; services: ServiceRecord[] }>(
    db,
    Prisma.sql`(SELECT json_build_object(${PAGE_FIELDS}) FROM "Page" g WHERE g.slug = ${HOME_PAGE_SLUG} AND g.status = ${PUBLISHED}) AS page,
     COALESCE((SELECT json_agg(${CATEGORY_TILE} ORDER BY c.name, c.slug)
       FROM "Category" c JOIN "CategoryProductCount" n ON n."categoryId" = c.id WHERE n."liveProducts" > 0), '[]') AS categories,
     ${PUBLISHED_SERVICES} AS services`,
    'storefront_home',
  );
}

/** The categories named (in that order), or every category with live products when none are named. */
export async function loadCategoryTiles(db: Db, slugs: readonly string[]): Promise<CategoryTile[]> {
  const rows = await queryRows<{ tile: CategoryTile }>(
    db,
    slugs.length
      ? Prisma.sql`SELECT ${CATEGORY_TILE} AS tile FROM "Category" c LEFT JOIN "CategoryProductCount" n ON n."categoryId" = c.id WHERE c.slug = ANY(${[...slugs]})`
      : Prisma.sql`SELECT ${CATEGORY_TILE} AS tile FROM "Category" c JOIN "CategoryProductCount" n ON n."categoryId" = c.id
                   WHERE n."liveProducts" > 0 ORDER BY c.name, c.slug`,
  );
  const tiles = rows.map((r) => r.tile);
  return slugs.length ? inOrder(tiles, slugs) : tiles;
}

const inOrder = <T extends { slug: string }>(items: T[], slugs: readonly string[]) => {
  const bySlug = new Map(items.map((i) => [i.slug, i]));
  return slugs.flatMap((s) => bySlug.get(s) ?? []);
};

type Stamped<T> = { items: T[]; updatedAt: string | null };

/** Live products by slug, in the order given; unknown and deleted ones are left out. */
async function productsBySlug(db: Db, slugs: readonly string[]): Promise<Stamped<ProductCard>> {
  const rows = await queryRows<{ card: ProductCard; updatedAt: Date | string }>(
    db,
    Prisma.sql`SELECT json_build_object(${CARD_FIELDS}) AS card, p."updatedAt" FROM "Product" p WHERE p.slug = ANY(${[...slugs]}) AND p."deletedAt" IS NULL`,
  );
  return { items: inOrder(rows.map((r) => r.card), slugs), updatedAt: newest(rows.map((r) => r.updatedAt)) };
}

/** products.search's results as cards, with the newest updatedAt among them (products.search does not return it). */
export async function searchProductCards(db: Db, input: Parameters<typeof searchProducts>[1]): Promise<Stamped<ProductCard>> {
  const found = await searchProducts(db, input);
  if (found.length === 0) return { items: [], updatedAt: null };
  const [stamp] = await queryRows<{ updatedAt: Date | string | null }>(
    db,
    Prisma.sql`SELECT max("updatedAt") AS "updatedAt" FROM "Product" WHERE id = ANY(${found.map((p) => p.id)})`,
  );
  return {
    items: found.map((p) => ({ slug: p.slug, name: p.name, brand: p.brand, priceOere: String(p.priceDkk), inStock: p.stock > 0, firstImage: p.firstImage })),
    updatedAt: stamp?.updatedAt ? new Date(stamp.updatedAt).toISOString() : null,
  };
}

/** The products a product-grid section shows: the named ones, else the newest of a category or the catalog. */
export function loadProductGrid(db: Db, opts: { productSlugs: readonly string[]; categorySlug: string | null; featuredOnly: boolean; limit: number }) {
  if (opts.productSlugs.length) return productsBySlug(db, opts.productSlugs.slice(0, opts.limit));
  return searchProductCards(db, {
    limit: opts.limit,
    ...(opts.categorySlug ? { categorySlug: opts.categorySlug } : {}),
    ...(opts.featuredOnly ? { featured: true } : {}),
  });
}

function newest(stamps: (Date | string | null | undefined)[]): string | null {
  let max: number | null = null;
  for (const s of stamps) {
    if (s === null || s === undefined) continue;
    const t = new Date(s).getTime();
    if (max === null || t > max) max = t;
  }
  return max === null ? null : new Date(max).toISOString();
}

// ---------- sitemap ----------

/** The most URLs one sitemap file may list (sitemaps.org protocol). */
export const SITEMAP_MAX_URLS = 50_000;

export type SitemapEntry = { path: string; updatedAt: string };

/** The front page, /services and every published page, service and category with live products. */
export async function sitemapSiteEntries(db: Db): Promise<SitemapEntry[]> {
  return queryRows<SitemapEntry>(
    db,
    Prisma.sql`SELECT '/info/' || slug AS path, "updatedAt" FROM "Page" WHERE status = ${PUBLISHED} AND slug <> ${HOME_PAGE_SLUG}
      UNION ALL SELECT '/services/' || slug, "updatedAt" FROM "ServiceOffering" WHERE status = ${PUBLISHED}
      UNION ALL SELECT '/categories/' || c.slug, c."updatedAt" FROM "Category" c JOIN "CategoryProductCount" n ON n."categoryId" = c.id WHERE n."liveProducts" > 0
      ORDER BY 1`,
  );
}

export async function liveProductStats(db: Db): Promise<{ count: number; updatedAt: string | null }> {
  const [row] = await queryRows<{ count: bigint | string; updatedAt: Date | string | null }>(
    db,
    Prisma.sql`SELECT count(*) AS count, max("updatedAt") AS "updatedAt" FROM "Product" WHERE "deletedAt" IS NULL`,
  );
  return { count: Number(row.count), updatedAt: row.updatedAt ? new Date(row.updatedAt).toISOString() : null };
}

/** The n-th (1-based) slice of live products for the sitemap, oldest first so a product keeps its file. */
export async function sitemapProductEntries(db: Db, part: number): Promise<SitemapEntry[]> {
  return queryRows<SitemapEntry>(
    db,
    Prisma.sql`SELECT '/products/' || slug AS path, "updatedAt" FROM "Product" WHERE "deletedAt" IS NULL
      ORDER BY "createdAt", id LIMIT ${SITEMAP_MAX_URLS} OFFSET ${(part - 1) * SITEMAP_MAX_URLS}`,
  );
}
