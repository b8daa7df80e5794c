-- Product variants (docs/catalog.md, "Variants"): options with ordered values, and the variants that are bought.
--
-- Every product keeps exactly one live variant at least. The product's "priceDkk" and stock stay columns, derived
-- by the database: the lowest price and the total stock (negative backorder stock counting as 0) of its live
-- variants, so every existing read (search, get, the storefront, the sitemap) reads them as before. Three triggers
-- keep the two in step, in the transaction of the change:
--   * a new product gets its default variant with the product's price and stock (also for rows written straight
--     to the table: the seed, the bench, tests);
--   * a change of a variant's price, stock or deletedAt recomputes its product's two columns;
--   * a write of the product's "priceDkk" or stock (products.update, audit.revert, a checkout or a cancel of the
--     release before) goes to the product's one live variant; with several it is refused with SQLSTATE AV001, even
--     when the value equals the derived one, which products.update reports as 422 variant_required.
-- pg_trigger_depth() keeps the two directions from feeding each other.

CREATE TABLE "ProductOption" (
    "id" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "values" TEXT[],

    CONSTRAINT "ProductOption_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "ProductVariant" (
    "id" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "sku" TEXT,
    "optionValues" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "priceDkk" BIGINT NOT NULL,
    "compareAtPriceDkk" BIGINT,
    "stock" BIGINT NOT NULL,
    "trackStock" BOOLEAN NOT NULL DEFAULT true,
    "allowBackorder" BOOLEAN NOT NULL DEFAULT false,
    "position" INTEGER NOT NULL DEFAULT 0,
    "images" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ProductVariant_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "ProductOption_productId_position_key" ON "ProductOption"("productId", "position");
CREATE INDEX "ProductVariant_productId_position_idx" ON "ProductVariant"("productId", "position");
-- Extra: a SKU names one live variant; a deleted variant's SKU can be used again.
CREATE UNIQUE INDEX "ProductVariant_sku_live_key" ON "ProductVariant"("sku") WHERE "deletedAt" IS NULL AND "sku" IS NOT NULL;

ALTER TABLE "ProductOption" ADD CONSTRAINT "ProductOption_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ProductVariant" ADD CONSTRAINT "ProductVariant_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Extra: the bounds the API checks first. Stock goes below zero only on a variant sold on backorder.
ALTER TABLE "ProductVariant" ADD CONSTRAINT "ProductVariant_priceDkk_check" CHECK ("priceDkk" > 0);
ALTER TABLE "ProductVariant" ADD CONSTRAINT "ProductVariant_stock_check" CHECK ("stock" >= 0 OR "allowBackorder");

-- Every existing product: one default variant carrying its price and stock.
INSERT INTO "ProductVariant" ("id", "productId", "priceDkk", "stock", "createdAt", "updatedAt")
  SELECT 'v' || md5(p."id"), p."id", p."priceDkk", p."stock", p."createdAt", now() FROM "Product" p;

CREATE FUNCTION "product_default_variant"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ProductVariant" ("id", "productId", "priceDkk", "stock", "createdAt", "updatedAt")
    VALUES ('v' || md5(NEW."id"), NEW."id", NEW."priceDkk", NEW."stock", NEW."createdAt", NEW."updatedAt");
  RETURN NULL;
END $$;

CREATE TRIGGER "Product_default_variant" AFTER INSERT ON "Product"
  FOR EACH ROW EXECUTE FUNCTION "product_default_variant"();

CREATE FUNCTION "variant_product_totals"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  pid TEXT := CASE WHEN TG_OP = 'DELETE' THEN OLD."productId" ELSE NEW."productId" END;
BEGIN
  IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
  UPDATE "Product" p SET "priceDkk" = t.price, "stock" = t.stock
    FROM (SELECT min("priceDkk") AS price, coalesce(sum(greatest("stock", 0)), 0) AS stock
            FROM "ProductVariant" WHERE "productId" = pid AND "deletedAt" IS NULL) t
   WHERE p."id" = pid AND t.price IS NOT NULL AND (p."priceDkk", p."stock") IS DISTINCT FROM (t.price, t.stock);
  RETURN NULL;
END $$;

CREATE TRIGGER "ProductVariant_product_totals" AFTER INSERT OR DELETE OR UPDATE OF "priceDkk", "stock", "deletedAt" ON "ProductVariant"
  FOR EACH ROW EXECUTE FUNCTION "variant_product_totals"();

CREATE FUNCTION "product_totals_to_variant"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF pg_trigger_depth() > 1 THEN RETURN NEW; END IF;
  -- Refused even when the value is the derived one: naming the product's price or stock is the mistake.
  IF (SELECT count(*) FROM "ProductVariant" WHERE "productId" = NEW."id" AND "deletedAt" IS NULL) > 1 THEN
    RAISE EXCEPTION 'product % has several variants: change their price or stock, not the product''s', NEW."slug"
      USING ERRCODE = 'AV001';
  END IF;
  IF (NEW."priceDkk", NEW."stock") IS DISTINCT FROM (OLD."priceDkk", OLD."stock") THEN
    UPDATE "ProductVariant" SET "priceDkk" = NEW."priceDkk", "stock" = NEW."stock", "updatedAt" = now()
     WHERE "productId" = NEW."id" AND "deletedAt" IS NULL;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "Product_totals_to_variant" BEFORE UPDATE OF "priceDkk", "stock" ON "Product"
  FOR EACH ROW EXECUTE FUNCTION "product_totals_to_variant"();
