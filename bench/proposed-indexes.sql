-- Indexes proposed by the benchmark (docs/performance.md), not yet in a migration. `BENCH_EXTRA_SQL=bench/proposed-indexes.sql
-- npm run bench` measures with them (IF NOT EXISTS: harmless once a migration has added them; then delete them here).

-- products.search with categorySlug (+ any other filter): the newest live products of one category, read in order
-- from the index, stopping after `limit` matches (src/tools/products.ts filters on p."categoryId" = (SELECT id …)).
-- Without it PostgreSQL walks every product newest first (~3,200 rows per call at 1 % of products per filter
-- combination) or fetches and sorts the whole category.
CREATE INDEX IF NOT EXISTS "Product_categoryId_createdAt_id_live_idx" ON "Product" ("categoryId", "createdAt", "id") WHERE "deletedAt" IS NULL;
