-- Cart lines buy a variant (docs/commerce.md, "Checkout for agents"): a line is one variant of a product, so a cart
-- may hold two sizes of one frame. Existing lines get their product's variant (every product has exactly one when
-- this runs after 20261129150000_product_variants; the first live one by position otherwise).
--
-- The column is never null (a CHECK), but a row written without it (by the release before, or straight to the
-- table) gets it from a trigger while its product has exactly one live variant; with several the row is refused:
-- a variant is never picked for the writer.

ALTER TABLE "CartItem" ADD COLUMN "variantId" TEXT;

UPDATE "CartItem" l SET "variantId" = (
  SELECT v."id" FROM "ProductVariant" v WHERE v."productId" = l."productId"
   ORDER BY v."deletedAt" IS NOT NULL, v."position", v."id" LIMIT 1);

-- Extra: the CHECK stands in for NOT NULL so that the trigger below fills the column first.
ALTER TABLE "CartItem" ADD CONSTRAINT "CartItem_variantId_check" CHECK ("variantId" IS NOT NULL);

DROP INDEX "CartItem_cartId_productId_key";
CREATE UNIQUE INDEX "CartItem_cartId_variantId_key" ON "CartItem"("cartId", "variantId");

ALTER TABLE "CartItem" ADD CONSTRAINT "CartItem_variantId_fkey" FOREIGN KEY ("variantId") REFERENCES "ProductVariant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE FUNCTION "cart_item_variant"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."variantId" IS NULL THEN
    NEW."variantId" := (SELECT min(v."id") FROM "ProductVariant" v WHERE v."productId" = NEW."productId" AND v."deletedAt" IS NULL
                         HAVING count(*) = 1);
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "CartItem_variant" BEFORE INSERT ON "CartItem"
  FOR EACH ROW EXECUTE FUNCTION "cart_item_variant"();
