-- The storefront's language (BCP 47 tag): sent as Content-Language and <html lang> on every public page.
ALTER TABLE "ShopSettings" ADD COLUMN "language" TEXT NOT NULL DEFAULT 'da';
