// The raw baseline of `npm run bench`: what a careful engineer would hand-write with the same stack (Fastify 5 +
// `pg`) to answer products.search (with its variant filter), products.get (with options and variants),
// products.update and checkout.create_order, and nothing else. No registry, zod, Prisma, auth, rate
// limiting: it is the practical limit the service is measured against, so it must stay minimal. Its writes
// (bench/baseline/writes.ts) do write their audit entries and idempotency record, in the same transaction.
// It answers with byte-identical JSON to the service on the same data (bench/run.ts checks this before
// measuring), which pins down the semantics: same filters, same order (newest first, then id descending), same
// limit, same envelope {ok:true,result}, same field order.
// It uses the same schema and the same query shapes as the service (the stored "searchText" for q, the category
// id as a subquery), so a ratio measures what the service adds on top of the database work, not a better query.
//
// POST /ceiling answers a constant of the size of an unfiltered products.search answer: the framework ceiling
// (HTTP + routing + JSON body parsing, no database, no serialization).
//
// Env: DATABASE_URL (required), PORT (default 0), HOST (127.0.0.1), POOL_MAX (10, as the service's DB_POOL_MAX).
// Prints `listening <port>` on stdout when ready.
import Fastify from 'fastify';
import pg from 'pg';
import { registerWrites } from './writes.ts';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.POOL_MAX ?? 10) });

type SearchBody = {
  q?: string;
  categorySlug?: string;
  brand?: string;
  frameColor?: string;
  lensColor?: string;
  featured?: boolean;
  inStock?: boolean;
  minPriceOere?: number;
  maxPriceOere?: number;
  optionValue?: string;
  limit?: number;
};

// Fastify's own JSON-schema validation (compiled by ajv once): the idiomatic minimum for a hand-written route.
const searchSchema = {
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      q: { type: 'string', maxLength: 200 },
      categorySlug: { type: 'string', minLength: 1, maxLength: 200 },
      brand: { type: 'string', maxLength: 200 },
      frameColor: { type: 'string', maxLength: 100 },
      lensColor: { type: 'string', maxLength: 100 },
      featured: { type: 'boolean' },
      inStock: { type: 'boolean' },
      minPriceOere: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      maxPriceOere: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      optionValue: { type: 'string', minLength: 1, maxLength: 100 },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
    },
  },
} as const;

const getSchema = {
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['slug'],
    properties: { slug: { type: 'string', minLength: 1, maxLength: 200 } },
  },
} as const;

type SummaryRow = {
  id: string; slug: string; name: string; brand: string | null; priceDkk: string; stock: string; featured: boolean;
  frameColor: string | null; lensColor: string | null; categorySlug: string | null; categoryName: string | null; firstImage: string | null;
  variantCount: string; maxPriceDkk: string | null;
};

async function search(b: SearchBody) {
  const where = ['p."deletedAt" IS NULL'];
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  if (b.q) {
    // Literal match: escape LIKE's wildcards and its escape character.
    const p = param(`%${b.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`p."searchText" LIKE lower(${p})`);
    if (b.q.includes('\u001f')) where.push(`(p.name ILIKE ${p} OR p.brand ILIKE ${p} OR p.description ILIKE ${p})`);
  }
  if (b.categorySlug !== undefined) where.push(`p."categoryId" = (SELECT id FROM "Category" WHERE slug = ${param(b.categorySlug)})`);
  if (b.brand !== undefined) where.push(`lower(p.brand) = lower(${param(b.brand)})`);
  if (b.frameColor !== undefined) where.push(`lower(p."frameColor") = lower(${param(b.frameColor)})`);
  if (b.lensColor !== undefined) where.push(`lower(p."lensColor") = lower(${param(b.lensColor)})`);
  if (b.featured !== undefined) where.push(`p.featured = ${param(b.featured)}`);
  if (b.optionValue === undefined) {
    if (b.inStock === true) where.push('p.stock > 0');
    if (b.inStock === false) where.push('p.stock = 0');
    if (b.minPriceOere !== undefined) where.push(`p."priceDkk" >= ${param(b.minPriceOere)}`);
    if (b.maxPriceOere !== undefined) where.push(`p."priceDkk" <= ${param(b.maxPriceOere)}`);
  } else {
    // With an option value, price and stock filter the variant that has it.
    const on = ['v."productId" = p.id', 'v."deletedAt" IS NULL', `EXISTS (SELECT FROM unnest(v."optionValues") o WHERE lower(o) = lower(${param(b.optionValue)}))`];
    if (b.minPriceOere !== undefined) on.push(`v."priceDkk" >= ${param(b.minPriceOere)}`);
    if (b.maxPriceOere !== undefined) on.push(`v."priceDkk" <= ${param(b.maxPriceOere)}`);
    const available = '(v.stock > 0 OR NOT v."trackStock" OR v."allowBackorder")';
    if (b.inStock === true) on.push(available);
    const match = `EXISTS (SELECT FROM "ProductVariant" v WHERE ${on.join(' AND ')})`;
    where.push(b.inStock === false ? `(${match} AND NOT EXISTS (SELECT FROM "ProductVariant" v WHERE ${[...on, available].join(' AND ')}))` : match);
  }
  const { rows } = await pool.query<SummaryRow>(
    `SELECT s.*, vs."variantCount", vs."maxPriceDkk" FROM (
       SELECT p.id, p.slug, p.name, p.brand, p."priceDkk", p.stock, p.featured, p."frameColor", p."lensColor",
              c.slug AS "categorySlug", c.name AS "categoryName", p.images[1] AS "firstImage", p."createdAt"
       FROM "Product" p LEFT JOIN "Category" c ON c.id = p."categoryId"
       WHERE ${where.join(' AND ')}
       ORDER BY p."createdAt" DESC, p.id DESC
       LIMIT ${param(b.limit ?? 20)}) s
     CROSS JOIN LATERAL (SELECT count(*) AS "variantCount", max(v."priceDkk") AS "maxPriceDkk"
                         FROM "ProductVariant" v WHERE v."productId" = s.id AND v."deletedAt" IS NULL) vs
     ORDER BY s."createdAt" DESC, s.id DESC`,
    values,
  );
  // Field order is part of the byte-for-byte contract.
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    name: r.name,
    brand: r.brand,
    priceDkk: Number(r.priceDkk),
    stock: Number(r.stock),
    featured: r.featured,
    frameColor: r.frameColor,
    lensColor: r.lensColor,
    categorySlug: r.categorySlug ?? '',
    categoryName: r.categoryName ?? '',
    firstImage: r.firstImage,
    variantCount: Number(r.variantCount),
    maxPriceDkk: Number(r.maxPriceDkk ?? r.priceDkk),
  }));
}

type DetailRow = {
  id: string; slug: string; name: string; brand: string | null; description: string; priceDkk: string; stock: string;
  featured: boolean; frameColor: string | null; lensColor: string | null; images: string[] | null; createdAt: Date;
  cSlug: string | null; cName: string | null; cDescription: string | null;
  options: { name: string; values: string[] }[];
  variants: {
    id: string; sku: string | null; optionValues: string[]; priceDkk: number; compareAtPriceDkk: number | null; stock: number;
    trackStock: boolean; allowBackorder: boolean; position: number; images: string[];
  }[] | null;
};

async function get(slug: string) {
  const { rows } = await pool.query<DetailRow>(
    `SELECT p.id, p.slug, p.name, p.brand, p.description, p."priceDkk", p.stock, p.featured, p."frameColor", p."lensColor",
            p.images, p."createdAt", c.slug AS "cSlug", c.name AS "cName", c.description AS "cDescription",
            coalesce((SELECT json_agg(json_build_object('name', o.name, 'values', o."values") ORDER BY o.position)
                      FROM "ProductOption" o WHERE o."productId" = p.id), '[]') AS options,
            (SELECT json_agg(json_build_object('id', v.id, 'sku', v.sku, 'optionValues', v."optionValues", 'priceDkk', v."priceDkk",
                                               'compareAtPriceDkk', v."compareAtPriceDkk", 'stock', v.stock, 'trackStock', v."trackStock",
                                               'allowBackorder', v."allowBackorder", 'position', v.position, 'images', v.images)
                             ORDER BY v.position, v.id)
             FROM "ProductVariant" v WHERE v."productId" = p.id AND v."deletedAt" IS NULL) AS variants
     FROM "Product" p LEFT JOIN "Category" c ON c.id = p."categoryId"
     WHERE p.slug = $1 AND p."deletedAt" IS NULL`,
    [slug],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    brand: r.brand,
    description: r.description,
    priceDkk: Number(r.priceDkk),
    stock: Number(r.stock),
    featured: r.featured,
    frameColor: r.frameColor,
    lensColor: r.lensColor,
    images: r.images ?? [],
    category: r.cSlug === null ? { slug: '', name: '', description: null } : { slug: r.cSlug, name: r.cName, description: r.cDescription },
    createdAt: r.createdAt.toISOString(),
    options: r.options,
    variants: (r.variants ?? []).map((v) => ({
      id: v.id,
      sku: v.sku,
      // Each option's value by the option's name.
      options: Object.fromEntries(r.options.flatMap((o, i) => (v.optionValues[i] === undefined ? [] : [[o.name, v.optionValues[i]]]))),
      priceDkk: Number(v.priceDkk),
      compareAtPriceDkk: v.compareAtPriceDkk === null ? null : Number(v.compareAtPriceDkk),
      stock: Number(v.stock),
      trackStock: v.trackStock,
      allowBackorder: v.allowBackorder,
      available: !v.trackStock || v.allowBackorder || Number(v.stock) > 0,
      position: v.position,
      images: v.images,
    })),
  };
}

const app = Fastify({ logger: false });

app.post<{ Body: SearchBody }>('/api/v1/tools/products.search', { schema: searchSchema }, async (req) => ({
  ok: true,
  result: await search(req.body),
}));

app.post<{ Body: { slug: string } }>('/api/v1/tools/products.get', { schema: getSchema }, async (req, reply) => {
  const product = await get(req.body.slug);
  if (!product) return reply.code(404).send({ ok: false, error: `No product with slug "${req.body.slug}".` });
  return { ok: true, result: product };
});

// Computed once at start-up from the data, so it has exactly the size of the unfiltered search answer.
const constant = JSON.stringify({ ok: true, result: await search({}) });
app.post('/ceiling', async (_req, reply) => reply.type('application/json; charset=utf-8').send(constant));

registerWrites(app, pool);

app.get('/health', async () => ({ ok: true }));

const shutdown = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

const address = await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
console.log(`listening ${new URL(address).port}`);
