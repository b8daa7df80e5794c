// Migrations 20261129150000_product_variants and _variants_cart on a database with products and a cart in it: every
// product gets one default variant carrying its price and stock, the product keeps both, and every cart line buys
// its product's variant (docs/catalog.md, "Variants").
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_MIGRATIONS_DIR, migrate } from '../../src/db/migrate.ts';
import { createEmptyTestDatabase, dropTestDatabase, testDatabaseUrl } from '../helpers/database.ts';

const VARIANTS = '20261129150000_product_variants';
let dir: string;
let name: string;
let url: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-api-variants-'));
  for (const entry of await readdir(DEFAULT_MIGRATIONS_DIR)) {
    if (entry < VARIANTS) await cp(path.join(DEFAULT_MIGRATIONS_DIR, entry), path.join(dir, entry), { recursive: true });
  }
  name = await createEmptyTestDatabase();
  url = testDatabaseUrl(name);
  await migrate(url, { migrationsDir: dir });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  if (name) await dropTestDatabase(name);
});

it('gives every existing product one default variant with its price and stock, and every cart line that variant', async () => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`INSERT INTO "Product" (id, slug, name, description, "priceDkk", stock, "updatedAt", "deletedAt")
                   VALUES ('p1', 'lamp', 'Lamp', 'A lamp.', 12300, 4, now(), NULL), ('p2', 'gone', 'Gone', 'Sold out.', 500, 0, now(), now())`);
    await c.query(`INSERT INTO "Cart" (id, status, "updatedAt") VALUES ('c1', 'open', now())`);
    await c.query(`INSERT INTO "CartItem" (id, "cartId", "productId", quantity) VALUES ('l1', 'c1', 'p1', 2)`);
    expect(await migrate(url)).toEqual(expect.arrayContaining([VARIANTS, '20261129150000_variants_cart']));
    const line = await c.query(`SELECT l."variantId" = v.id AS same FROM "CartItem" l JOIN "ProductVariant" v ON v."productId" = l."productId"`);
    expect(line.rows).toEqual([{ same: true }]);
    const { rows } = await c.query(`SELECT "productId", "priceDkk"::int AS price, stock::int, "optionValues", sku, "deletedAt"
                                    FROM "ProductVariant" ORDER BY "productId"`);
    expect(rows).toEqual([
      { productId: 'p1', price: 12300, stock: 4, optionValues: [], sku: null, deletedAt: null },
      { productId: 'p2', price: 500, stock: 0, optionValues: [], sku: null, deletedAt: null },
    ]);
    const products = await c.query(`SELECT id, "priceDkk"::int AS price, stock::int FROM "Product" ORDER BY id`);
    expect(products.rows).toEqual([{ id: 'p1', price: 12300, stock: 4 }, { id: 'p2', price: 500, stock: 0 }]);
  } finally {
    await c.end();
  }
});
