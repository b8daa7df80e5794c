-- The shop's address book: buyers' saved shipping addresses by e-mail, offered to UCP checkouts of keys with
-- customer:read (docs/agentic-checkout.md, reading 15). One entry per buyer and place.
CREATE TABLE "BuyerAddress" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "address" JSONB NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BuyerAddress_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "BuyerAddress_email_fingerprint_key" ON "BuyerAddress"("email", "fingerprint");
