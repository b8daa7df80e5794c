-- At most one shipping rate per service level and country (docs/agentic-checkout.md, "Shipping rate tools"). NULLS
-- NOT DISTINCT (PostgreSQL 15) makes the rate for every country (countryCode null) unique per level too; Prisma has
-- no syntax for it, so the index is hand-written here and not in schema.prisma.
CREATE UNIQUE INDEX "ShippingRate_serviceLevel_countryCode_key" ON "ShippingRate" ("serviceLevel", "countryCode") NULLS NOT DISTINCT;
