-- Shipping rates a checkout can choose among (docs/agentic-checkout.md, "Fulfillment options").
CREATE TABLE "ShippingRate" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "serviceLevel" TEXT NOT NULL,
    "countryCode" TEXT,
    "priceDkk" BIGINT NOT NULL,
    "freeFromDkk" BIGINT,
    "freeForVariantIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ShippingRate_pkey" PRIMARY KEY ("id")
);
