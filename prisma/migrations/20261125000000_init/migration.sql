-- Initial schema, written by hand in the form `prisma migrate diff --from-empty --to-schema` emits for
-- prisma/schema.prisma (Prisma's schema engine cannot be downloaded here; see docs and design.md §2).
-- test/db/migrations.test.ts proves that the migrated database matches schema.prisma.
--
-- Hand-written additions that Prisma would not emit are marked "Extra" below:
--   * the pg_trgm extension (needed by the trigram GIN indexes, which ARE declared in schema.prisma);
--   * CHECK constraints (Prisma neither emits nor drops them; the API validates the same bounds first,
--     these are the last line of defence against a negative stock or usage count after a race);
--   * one partial index for the featured-products listing.
-- Never edit this file once applied anywhere: its SHA-256 is recorded in _prisma_migrations and
-- src/db/migrate.ts refuses to run when it changes. Put changes in a new migration folder.

-- Extra: trigram operator classes for the "Product_*_trgm_idx" GIN indexes below.
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateTable
CREATE TABLE "Category" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Category_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Product" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "brand" TEXT,
    "priceDkk" BIGINT NOT NULL,
    "stock" BIGINT NOT NULL,
    "featured" BOOLEAN NOT NULL DEFAULT false,
    "frameColor" TEXT,
    "lensColor" TEXT,
    "images" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "categoryId" TEXT,
    "attributes" JSONB,
    "answerSummary" TEXT,
    "faq" JSONB,
    "useCases" JSONB,
    "comparisonFacts" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Product_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Order" (
    "id" TEXT NOT NULL,
    "userId" TEXT,
    "email" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "shippingName" TEXT NOT NULL,
    "shippingAddress" TEXT NOT NULL,
    "shippingZip" TEXT NOT NULL,
    "shippingCity" TEXT NOT NULL,
    "billingName" TEXT,
    "billingAddress" TEXT,
    "billingZip" TEXT,
    "billingCity" TEXT,
    "billingCountry" TEXT,
    "phoneNumber" TEXT,
    "subtotalDkk" BIGINT NOT NULL,
    "shippingDkk" BIGINT NOT NULL,
    "discountDkk" BIGINT NOT NULL,
    "totalDkk" BIGINT NOT NULL,
    "vatOere" BIGINT,
    "invoiceProvider" TEXT,
    "invoiceId" TEXT,
    "invoicePdfUrl" TEXT,
    "discountCode" TEXT,
    "isAiGenerated" BOOLEAN NOT NULL DEFAULT false,
    "aiAgentSource" TEXT,
    "carrier" TEXT,
    "trackingNumber" TEXT,
    "trackingUrl" TEXT,
    "estDeliveryFrom" TIMESTAMPTZ(3),
    "estDeliveryTo" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "stripePaymentIntentId" TEXT,
    "paymentMethod" TEXT,
    "paidAt" TIMESTAMPTZ(3),
    "confirmationEmailSentAt" TIMESTAMPTZ(3),
    "refundedAt" TIMESTAMPTZ(3),
    "disputedAt" TIMESTAMPTZ(3),
    "shippedAt" TIMESTAMPTZ(3),
    "currency" TEXT NOT NULL DEFAULT 'DKK',
    "fxRate" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "channel" TEXT NOT NULL DEFAULT 'web',
    "acpSessionId" TEXT,

    CONSTRAINT "Order_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OrderItem" (
    "id" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "productName" TEXT NOT NULL,
    "unitPriceDkk" BIGINT NOT NULL,
    "quantity" BIGINT NOT NULL,
    "variantId" TEXT,
    "variantSku" TEXT,
    "variantAttributes" JSONB,

    CONSTRAINT "OrderItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DiscountCode" (
    "id" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "value" BIGINT NOT NULL,
    "validUntil" TIMESTAMPTZ(3),
    "usageLimit" BIGINT,
    "usageCount" BIGINT NOT NULL DEFAULT 0,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "DiscountCode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Page" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'published',
    "layout" JSONB,
    "vibeHtml" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Page_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ServiceOffering" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "shortDescription" TEXT,
    "priceString" TEXT,
    "heroImage" TEXT,
    "features" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "showInNav" BOOLEAN NOT NULL DEFAULT false,
    "navOrder" BIGINT NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'published',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ServiceOffering_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scopes" TEXT[],
    "secretHash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "apiKeyId" TEXT,
    "tool" TEXT NOT NULL,
    "entityType" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "meta" JSONB,
    "revertOf" TEXT,

    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdempotencyRecord" (
    "id" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "statusCode" INTEGER,
    "response" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMPTZ(3),

    CONSTRAINT "IdempotencyRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Cart" (
    "id" TEXT NOT NULL,
    "apiKeyId" TEXT,
    "email" TEXT,
    "discountCode" TEXT,
    "status" TEXT NOT NULL DEFAULT 'open',
    "orderId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Cart_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CartItem" (
    "id" TEXT NOT NULL,
    "cartId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "quantity" BIGINT NOT NULL,

    CONSTRAINT "CartItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ShopSettings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "shopName" TEXT NOT NULL DEFAULT 'Agent Shop',
    "currency" TEXT NOT NULL DEFAULT 'DKK',
    "shippingFeeDkk" BIGINT NOT NULL DEFAULT 4900,
    "freeShippingThresholdDkk" BIGINT DEFAULT 50000,
    "vatRateBasisPoints" INTEGER NOT NULL DEFAULT 2500,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ShopSettings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FeatureFlag" (
    "key" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "description" TEXT,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "FeatureFlag_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "Category_slug_key" ON "Category"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "Product_slug_key" ON "Product"("slug");

-- CreateIndex
CREATE INDEX "Product_categoryId_deletedAt_idx" ON "Product"("categoryId", "deletedAt");

-- CreateIndex
CREATE INDEX "Product_priceDkk_idx" ON "Product"("priceDkk");

-- CreateIndex
CREATE INDEX "Product_createdAt_id_idx" ON "Product"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Product_brand_idx" ON "Product"("brand");

-- CreateIndex
CREATE INDEX "Product_name_trgm_idx" ON "Product" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Product_brand_trgm_idx" ON "Product" USING GIN ("brand" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Product_description_trgm_idx" ON "Product" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Order_status_createdAt_idx" ON "Order"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Order_email_createdAt_idx" ON "Order"("email", "createdAt");

-- CreateIndex
CREATE INDEX "Order_createdAt_idx" ON "Order"("createdAt");

-- CreateIndex
CREATE INDEX "OrderItem_orderId_idx" ON "OrderItem"("orderId");

-- CreateIndex
CREATE INDEX "OrderItem_productId_idx" ON "OrderItem"("productId");

-- CreateIndex
CREATE UNIQUE INDEX "DiscountCode_code_key" ON "DiscountCode"("code");

-- CreateIndex
CREATE UNIQUE INDEX "Page_slug_key" ON "Page"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "ServiceOffering_slug_key" ON "ServiceOffering"("slug");

-- CreateIndex
CREATE INDEX "ServiceOffering_status_navOrder_idx" ON "ServiceOffering"("status", "navOrder");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_secretHash_key" ON "ApiKey"("secretHash");

-- CreateIndex
CREATE INDEX "AuditEntry_entityType_entityId_at_idx" ON "AuditEntry"("entityType", "entityId", "at");

-- CreateIndex
CREATE INDEX "AuditEntry_tool_at_idx" ON "AuditEntry"("tool", "at");

-- CreateIndex
CREATE INDEX "AuditEntry_at_id_idx" ON "AuditEntry"("at", "id");

-- CreateIndex
CREATE INDEX "AuditEntry_revertOf_idx" ON "AuditEntry"("revertOf");

-- CreateIndex
CREATE INDEX "IdempotencyRecord_createdAt_idx" ON "IdempotencyRecord"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "IdempotencyRecord_apiKeyId_key_key" ON "IdempotencyRecord"("apiKeyId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "CartItem_cartId_productId_key" ON "CartItem"("cartId", "productId");

-- AddForeignKey
ALTER TABLE "Product" ADD CONSTRAINT "Product_categoryId_fkey" FOREIGN KEY ("categoryId") REFERENCES "Category"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrderItem" ADD CONSTRAINT "OrderItem_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrderItem" ADD CONSTRAINT "OrderItem_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CartItem" ADD CONSTRAINT "CartItem_cartId_fkey" FOREIGN KEY ("cartId") REFERENCES "Cart"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CartItem" ADD CONSTRAINT "CartItem_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Extra: CHECK constraints (names follow PostgreSQL's own "<table>_<column>_check" convention).
-- Price and quantities are > 0 and stock/usage never negative (spec §2.1; design.md §6 cancel/restock).
ALTER TABLE "Product" ADD CONSTRAINT "Product_priceDkk_check" CHECK ("priceDkk" > 0);
ALTER TABLE "Product" ADD CONSTRAINT "Product_stock_check" CHECK ("stock" >= 0);
ALTER TABLE "DiscountCode" ADD CONSTRAINT "DiscountCode_usageCount_check" CHECK ("usageCount" >= 0);
ALTER TABLE "OrderItem" ADD CONSTRAINT "OrderItem_quantity_check" CHECK ("quantity" > 0);
ALTER TABLE "CartItem" ADD CONSTRAINT "CartItem_quantity_check" CHECK ("quantity" > 0);

-- Extra: products.search with featured=true. Featured products are a handful out of 100k, so this
-- partial index is tiny and turns "newest featured, not deleted" into an index scan instead of walking
-- "Product_createdAt_id_idx" past every non-featured row. Not expressible without Prisma's
-- partialIndexes preview feature; a later `prisma migrate dev` would propose dropping it: keep it then.
CREATE INDEX "Product_featured_createdAt_id_idx" ON "Product"("createdAt", "id") WHERE "featured" AND "deletedAt" IS NULL;
