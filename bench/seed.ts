// Bench data: a dedicated database per run, filled with set-based SQL (generate_series → INSERT … SELECT),
// so 100,000 products take seconds, not the minutes that one INSERT per row (or Prisma createMany) would.
//
// Everything is deterministic: row i always gets the same slug, name, price, stock, colours and createdAt,
// so two runs on two machines measure the same queries over the same data. "Random" choices come from a
// multiplicative hash of (i, salt) computed in SQL, never from random().
//
// Run alone to seed an existing, migrated database (e.g. for profiling by hand):
//   npx tsx bench/seed.ts postgresql://postgres@127.0.0.1:5432/mydb 100000
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

/** The `q` of the "search with q" case. Seeded into ≈1 % of products (½ in the name, ½ in the description). */
export const Q_WORD = 'titanium';

export const CATEGORY_COUNT = 50;
export const ORDER_COUNT = 10_000;

// Vocabulary for names and descriptions. None of these contains Q_WORD (checked below), so the q case
// matches exactly the rows that were given the word on purpose.
const STYLES = [
  'Aviator', 'Wayfarer', 'Round', 'Cat-eye', 'Square', 'Shield', 'Browline', 'Oval', 'Rectangle', 'Wrap',
  'Pilot', 'Clubmaster', 'Butterfly', 'Hexagon', 'Geometric', 'Rimless', 'Semi-rimless', 'Oversized', 'Goggle', 'Panto',
];
const ADJECTIVES = [
  'classic', 'bold', 'slim', 'light', 'urban', 'coastal', 'alpine', 'retro', 'modern', 'polar',
  'nordic', 'vintage', 'sporty', 'everyday', 'premium', 'compact', 'wide', 'soft', 'sharp', 'quiet',
];
const MATERIALS = ['acetate', 'steel', 'nylon', 'bio-acetate', 'aluminium', 'wood', 'carbon', 'TR90', 'horn', 'recycled PET'];
const COLORS = ['black', 'tortoise', 'gold', 'silver', 'clear', 'navy', 'red', 'green', 'brown', 'grey', 'pink', 'white'];
const LENSES = ['grey', 'green', 'brown', 'blue', 'mirror', 'clear', 'amber', 'rose', 'photochromic', 'polarized grey'];
const BRANDS = [
  'Nordlys', 'Havblik', 'Fjord', 'Skagen Optik', 'Lysglimt', 'Vinterhav', 'Solstrejf', 'Klitrose', 'Bølge', 'Granit',
  'Morgendug', 'Strandeng', 'Tusmørke', 'Kyst', 'Ravn', 'Lærk', 'Ask & Eg', 'Mols', 'Vadehav', 'Lyngbo',
];
const SENTENCES_A = [
  'Hand-polished and balanced for all-day wear.',
  'Spring hinges keep the fit gentle on the temples.',
  'Designed in Aarhus and assembled in small batches.',
  'A low bridge fit suits most face shapes.',
  'The temples are adjustable by any optician.',
  'Includes a microfibre pouch and a cleaning cloth.',
  'UV400 protection blocks both UVA and UVB light.',
  'The lenses resist scratches and smudges.',
  'A keyhole bridge gives it a vintage touch.',
  'Weighs less than most frames of its size.',
  'Made to last for years of daily use.',
  'Tested on the beach, on the slopes and in the city.',
];
const SENTENCES_B = [
  'Prescription lenses can be fitted.',
  'Free returns within thirty days.',
  'Two years of warranty on the frame.',
  'Comes in a recycled cardboard case.',
  'Ideal for driving in bright sunlight.',
  'Suits both narrow and wide faces.',
  'A favourite among cyclists and runners.',
  'The nose pads are made of soft silicone.',
  'Ships within one working day.',
  'Part of this season\u2019s collection.',
];
const CATEGORY_BASES = [
  ['sunglasses', 'Sunglasses'], ['sport', 'Sport eyewear'], ['reading', 'Reading glasses'], ['kids', 'Kids'],
  ['blue-light', 'Blue-light glasses'], ['ski', 'Ski goggles'], ['safety', 'Safety glasses'], ['swim', 'Swim goggles'],
  ['fashion', 'Fashion frames'], ['accessories', 'Accessories'],
] as const;
const CATEGORY_VARIANTS = [['', ''], ['-women', ' for women'], ['-men', ' for men'], ['-outlet', ' (outlet)'], ['-premium', ' premium']] as const;
const ORDER_STATUSES = [
  'pending_payment', 'pending', 'paid', 'flagged_review', 'shipped', 'cancelled',
  'refunded', 'partial_refund', 'disputed', 'processing', 'delivered', 'completed',
];
const CITIES = ['København', 'Aarhus', 'Odense', 'Aalborg', 'Esbjerg', 'Randers', 'Kolding', 'Horsens', 'Vejle', 'Roskilde'];

for (const word of [...STYLES, ...ADJECTIVES, ...MATERIALS, ...COLORS, ...LENSES, ...BRANDS, ...SENTENCES_A, ...SENTENCES_B]) {
  if (word.toLowerCase().includes(Q_WORD)) throw new Error(`bench vocabulary must not contain "${Q_WORD}": ${word}`);
}

/** The 50 categories: 10 bases × 5 variants, ids bc01…bc50. */
export function benchCategories() {
  const out: { id: string; slug: string; name: string; description: string | null }[] = [];
  for (const [vSlug, vName] of CATEGORY_VARIANTS) {
    for (const [slug, name] of CATEGORY_BASES) {
      const n = out.length + 1;
      out.push({
        id: `bc${String(n).padStart(2, '0')}`,
        slug: `${slug}${vSlug}`,
        name: `${name}${vName}`,
        // A few without description, as in a real shop (and to exercise null in products.get).
        description: n % 7 === 0 ? null : `${name}${vName}: frames and accessories, category ${n}.`,
      });
    }
  }
  if (out.length !== CATEGORY_COUNT) throw new Error('category list out of sync');
  return out;
}

export const VARIANT_SIZES = ['S', 'M', 'L', 'XL'];
export const VARIANT_LENSES = ['Grey', 'Brown', 'Green', 'Blue', 'Rose'];
/** Products sold in variants, for the samplers that must leave them out (their price and stock are derived). */
export const SINGLE_VARIANT = `NOT EXISTS (SELECT FROM "ProductOption" o WHERE o."productId" = "Product".id)`;

export type SeedStats = {
  products: number;
  liveProducts: number;
  categories: number;
  orders: number;
  orderItems: number;
  /** Live products matching Q_WORD by q's definition (name, brand or description, ILIKE; products.search runs it on "searchText"). */
  qMatches: number;
  seedSeconds: number;
  /** Seconds per seeding step. */
  steps: Record<string, number>;
};

export type BenchDatabase = { name: string; url: string; drop: () => Promise<void> };

/** CREATE DATABASE agent_api_bench_<random> on the server of `serverUrl`; drop() is idempotent and FORCEs. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `agent_api_bench_${randomBytes(5).toString('hex')}`;
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: url.toString(),
    drop: () =>
      (dropped ??= admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).then(() => {})),
  };
}

async function admin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(serverUrl);
  // CREATE/DROP DATABASE cannot run while connected to the target; the maintenance db always exists.
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// h(i, salt) in 0..65535: Knuth's multiplicative hash, top 16 of 32 bits. Deterministic on every PostgreSQL
// version (unlike hashint4 or random()), and uncorrelated between salts, so e.g. the q rows are not all in
// one category. A NULL-or-value choice uses another salt than the value itself, or one value would never occur.
const h = (salt: number) => `((((i::bigint + ${salt * 104_729}) * 2654435761) % 4294967296) >> 16)`;

/** Fills a freshly migrated database. `products` rows over CATEGORY_COUNT categories and ORDER_COUNT orders. */
export async function seedBenchData(url: string, products: number): Promise<SeedStats> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const steps: Record<string, number> = {};
  let mark = Date.now();
  const lap = (name: string) => {
    steps[name] = (Date.now() - mark) / 1000;
    mark = Date.now();
  };
  try {
    await client.query('BEGIN');
    const cats = benchCategories();
    await client.query(
      `INSERT INTO "Category" (id, slug, name, description, "createdAt", "updatedAt")
       SELECT id, slug, name, description, timestamptz '2025-01-01T00:00:00Z', timestamptz '2025-01-01T00:00:00Z'
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(id, slug, name, description)`,
      [cats.map((c) => c.id), cats.map((c) => c.slug), cats.map((c) => c.name), cats.map((c) => c.description)],
    );

    // Building an index once over 100k rows is several times faster than maintaining it row by row (above all
    // the trigram GIN indexes), so Product's secondary indexes are dropped and re-created from their own
    // definitions (pg_get_indexdef): the result is the migrated schema, byte for byte.
    await client.query(`SET LOCAL maintenance_work_mem = '256MB'`);
    const { rows: indexes } = await client.query<{ name: string; def: string }>(
      `SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
       WHERE x.indrelid = '"Product"'::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`,
    );
    for (const ix of indexes) await client.query(`DROP INDEX ${pg.escapeIdentifier(ix.name)}`);

    // createdAt: (i * 7919) mod n is a permutation of 0..n-1 (7919 is prime and divides neither 10^4 nor
    // 10^5), halved so that pairs of products share a timestamp and the "id DESC" tie-breaker matters.
    // Product i % 200 = 42 gets Q_WORD in its name, i % 200 = 142 in its description (1 % together);
    // i % 200 = 199 is soft-deleted (0.5 %).
    await client.query(
      `INSERT INTO "Product" (id, slug, name, description, brand, "priceDkk", stock, featured, "frameColor", "lensColor",
                             images, "categoryId", "createdAt", "updatedAt", "deletedAt")
       SELECT id, slug, name, description, brand, price, stock, featured, fc, lc, images, cat, created, created,
              CASE WHEN i % 200 = 199 THEN created + interval '1 day' END
       FROM (
         SELECT i,
           'bp' || lpad(i::text, 7, '0') AS id,
           lower(st) || '-' || replace(coalesce(fc, 'assorted'), ' ', '-') || '-' || i AS slug,
           initcap(adj) || ' ' || st || ' ' || CASE WHEN i % 200 = 42 THEN 'Titanium' ELSE mat END || ' ' || i AS name,
           st || ' frame in ' || coalesce(fc, 'assorted colours') || ' ' || mat || ' with ' || coalesce(lc, 'no') || ' lenses. '
             || ($6::text[])[1 + ${h(6)} % cardinality($6::text[])] || ' '
             || ($7::text[])[1 + ${h(7)} % cardinality($7::text[])]
             || CASE WHEN i % 200 = 142 THEN ' Hinges in lightweight titanium.' ELSE '' END AS description,
           CASE WHEN ${h(15)} % 20 = 0 THEN NULL ELSE ($5::text[])[1 + ${h(8)} % cardinality($5::text[])] END AS brand,
           ((49 + ${h(9)} % 2950) * 100 + (${h(9)} % 2) * 95)::bigint AS price,
           (CASE WHEN ${h(10)} % 7 = 0 THEN 0 ELSE 1 + ${h(11)} % 150 END)::bigint AS stock,
           ${h(12)} % 100 = 0 AS featured,
           fc, lc,
           CASE WHEN ${h(13)} % 20 = 0 THEN '{}'::text[]
                ELSE ARRAY['https://images.example.com/p/' || i || '-1.jpg', 'https://images.example.com/p/' || i || '-2.jpg'] END AS images,
           'bc' || lpad((1 + ${h(14)} % ${CATEGORY_COUNT})::text, 2, '0') AS cat,
           timestamptz '2025-01-01T00:00:00Z' + ((((i::bigint * 7919) % $8::int) / 2) * interval '1 minute') AS created
         FROM generate_series(1, $8::int) AS g(i)
         CROSS JOIN LATERAL (
           SELECT ($1::text[])[1 + ${h(1)} % cardinality($1::text[])] AS st,
                  ($2::text[])[1 + ${h(2)} % cardinality($2::text[])] AS adj,
                  ($3::text[])[1 + ${h(3)} % cardinality($3::text[])] AS mat,
                  CASE WHEN ${h(16)} % 25 = 0 THEN NULL ELSE ($4::text[])[1 + ${h(4)} % cardinality($4::text[])] END AS fc,
                  CASE WHEN ${h(17)} % 25 = 0 THEN NULL ELSE ($9::text[])[1 + ${h(5)} % cardinality($9::text[])] END AS lc
         ) AS words
       ) AS p`,
      [STYLES, ADJECTIVES, MATERIALS, COLORS, BRANDS, SENTENCES_A, SENTENCES_B, products, LENSES],
    );
    lap('products');
    // One product in a hundred (i % 100 = 7) is sold in 20 variants: 4 sizes × 5 lens colours, the cheapest (the
    // default variant the insert made, now S / Grey) at the product's price, each next one 1 DKK more. The rest
    // keep their one default variant.
    await client.query(
      `INSERT INTO "ProductOption" (id, "productId", position, name, "values")
       SELECT p.id || '-o' || o.pos, p.id, o.pos, o.name, o.vals
       FROM "Product" p
       CROSS JOIN (VALUES (0, 'Size', $1::text[]), (1, 'Lens colour', $2::text[])) AS o(pos, name, vals)
       WHERE substr(p.id, 3)::int % 100 = 7`,
      [VARIANT_SIZES, VARIANT_LENSES],
    );
    await client.query(
      `UPDATE "ProductVariant" v SET "optionValues" = ARRAY[($1::text[])[1], ($2::text[])[1]], sku = 'BV-' || v."productId" || '-0'
       WHERE substr(v."productId", 3)::int % 100 = 7`,
      [VARIANT_SIZES, VARIANT_LENSES],
    );
    await client.query(
      `INSERT INTO "ProductVariant" (id, "productId", sku, "optionValues", "priceDkk", stock, position, "createdAt", "updatedAt")
       SELECT 'bv' || p.id || '-' || k, p.id, 'BV-' || p.id || '-' || k,
              ARRAY[($1::text[])[1 + k / 5], ($2::text[])[1 + k % 5]], v."priceDkk" + k * 100,
              (substr(p.id, 3)::int * k) % 40, k, p."createdAt", p."createdAt"
       FROM "Product" p JOIN "ProductVariant" v ON v."productId" = p.id
       CROSS JOIN generate_series(1, 19) AS g(k)
       WHERE substr(p.id, 3)::int % 100 = 7`,
      [VARIANT_SIZES, VARIANT_LENSES],
    );
    lap('variants');
    for (const ix of indexes) await client.query(ix.def);
    lap('productIndexes');

    // Orders spread evenly over the 12 statuses and the last ~70 days; 1–3 items each, priced from the product.
    await client.query(
      `INSERT INTO "Order" (id, email, status, "shippingName", "shippingAddress", "shippingZip", "shippingCity",
                           "subtotalDkk", "shippingDkk", "discountDkk", "totalDkk", "discountCode", "isAiGenerated", channel,
                           "paidAt", "createdAt", "updatedAt")
       SELECT 'bo' || lpad(i::text, 6, '0'),
              'customer' || (i % 2500) || '@example.com',
              (($1::text[])[1 + ${h(20)} % 12])::"OrderStatus",
              'Customer ' || (i % 2500),
              'Vej ' || (1 + i % 120) || ', ' || (1 + i % 9) || '. sal',
              lpad((1000 + ${h(21)} % 8999)::text, 4, '0'),
              ($2::text[])[1 + ${h(22)} % cardinality($2::text[])],
              0, 4900, CASE WHEN i % 10 = 0 THEN 5000 ELSE 0 END, 0,
              CASE WHEN i % 10 = 0 THEN 'WELCOME50' END,
              i % 4 = 0,
              CASE WHEN i % 4 = 0 THEN 'agent' ELSE 'web' END,
              NULL,
              timestamptz '2025-03-01T00:00:00Z' + (i * interval '10 minutes') + (${h(23)} % 600) * interval '1 second',
              timestamptz '2025-03-01T00:00:00Z' + (i * interval '10 minutes')
       FROM generate_series(1, $3::int) AS g(i)`,
      [ORDER_STATUSES, CITIES, ORDER_COUNT],
    );
    lap('orders');
    await client.query(
      `INSERT INTO "OrderItem" (id, "orderId", "productId", "productName", "unitPriceDkk", quantity)
       SELECT 'bi' || lpad(i::text, 6, '0') || '-' || j, 'bo' || lpad(i::text, 6, '0'), p.id, p.name, p."priceDkk", 1 + (i + j) % 2
       FROM generate_series(1, $1::int) AS g(i)
       CROSS JOIN LATERAL generate_series(1, 1 + i % 3) AS it(j)
       JOIN "Product" p ON p.id = 'bp' || lpad((1 + (((i * 3 + j)::bigint * 2654435761) % 4294967296) % $2::int)::text, 7, '0')`,
      [ORDER_COUNT, products],
    );
    lap('orderItems');
    await client.query(
      `UPDATE "Order" o SET "subtotalDkk" = s.sub, "totalDkk" = s.sub + o."shippingDkk" - least(o."discountDkk", s.sub),
                            "discountDkk" = least(o."discountDkk", s.sub),
                            "paidAt" = CASE WHEN o.status NOT IN ('pending_payment', 'pending', 'cancelled') THEN o."createdAt" + interval '2 minutes' END
       FROM (SELECT "orderId", sum("unitPriceDkk" * quantity) AS sub FROM "OrderItem" GROUP BY "orderId") s
       WHERE s."orderId" = o.id`,
    );
    await client.query('COMMIT');
    lap('orderTotals');

    // VACUUM (not only ANALYZE) of the tables filled here: sets the visibility map and removes the dead row versions
    // of the load (the trigger-maintained "CategoryProductCount" updated its 50 rows 100,000 times), as autovacuum
    // would within a minute on a live database, so reads are measured as they run in production, not on a
    // just-loaded table. Only those: a table analysed while empty (carts, audit, idempotency records, events) gets
    // statistics that say "empty", and with this machine's autovacuum off nothing would ever correct them while the
    // writes fill it; prepared statements would then keep generic plans that scan it (1.4 ms per keyed write at
    // 5,000 records). Left alone, they keep a fresh database's defaults, which use the indexes, until autovacuum
    // analyses them in production.
    await client.query('VACUUM (ANALYZE) "Category", "CategoryProductCount", "Product", "ProductOption", "ProductVariant", "Order", "OrderItem", "ShopSettings"');
    lap('vacuumAnalyze');

    const { rows } = await client.query<{ products: string; live: string; orders: string; items: string; q: string }>(
      `SELECT (SELECT count(*) FROM "Product") AS products,
              (SELECT count(*) FROM "Product" WHERE "deletedAt" IS NULL) AS live,
              (SELECT count(*) FROM "Order") AS orders,
              (SELECT count(*) FROM "OrderItem") AS items,
              (SELECT count(*) FROM "Product" WHERE "deletedAt" IS NULL AND (name ILIKE $1 OR brand ILIKE $1 OR description ILIKE $1)) AS q`,
      [`%${Q_WORD}%`],
    );
    const r = rows[0];
    return {
      products: Number(r.products),
      liveProducts: Number(r.live),
      categories: cats.length,
      orders: Number(r.orders),
      orderItems: Number(r.items),
      qMatches: Number(r.q),
      seedSeconds: (Date.now() - started) / 1000,
      steps,
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [url, n = '100000'] = process.argv.slice(2);
  if (!url) {
    console.error('usage: tsx bench/seed.ts <database url of a migrated, empty database> [products]');
    process.exit(2);
  }
  console.log(await seedBenchData(url, Number(n)));
}
