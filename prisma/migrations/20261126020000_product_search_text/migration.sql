-- products.search's q: one stored, lower-cased text of the three searched fields, matched with LIKE.
--
-- On a UTF-8 database PostgreSQL evaluates `x ILIKE p` as `lower(x) LIKE lower(p)`, lower-casing x on every
-- comparison (~2.3 µs per description at 100k products, measured). Stored once per write, the same match costs
-- a byte-wise LIKE (~0.5 µs). U+001F between the fields keeps a match inside one field unless q itself contains
-- U+001F (src/tools/products.ts then adds the per-field ILIKEs). One trigram index on it replaces the three
-- per-column ones, which nothing else used. Adding a stored generated column rewrites the table once.
ALTER TABLE "Product" ADD COLUMN "searchText" TEXT GENERATED ALWAYS AS (lower("name") || chr(31) || lower(COALESCE("brand", '')) || chr(31) || lower("description")) STORED;

DROP INDEX "Product_name_trgm_idx";
DROP INDEX "Product_brand_trgm_idx";
DROP INDEX "Product_description_trgm_idx";

CREATE INDEX "Product_searchText_trgm_idx" ON "Product" USING GIN ("searchText" gin_trgm_ops);
