-- Status and type columns become enums: the database refuses a value outside the closed set, and the generated
-- client types them. Existing rows keep their values (USING casts each text value to the enum label it names).

CREATE TYPE "OrderStatus" AS ENUM ('pending_payment', 'pending', 'paid', 'flagged_review', 'processing', 'shipped', 'delivered', 'completed', 'partial_refund', 'disputed', 'cancelled', 'refunded');
CREATE TYPE "PublishStatus" AS ENUM ('draft', 'published');
CREATE TYPE "CartStatus" AS ENUM ('open', 'checked_out');
CREATE TYPE "DiscountType" AS ENUM ('percent', 'fixed');

ALTER TABLE "Order" ALTER COLUMN "status" TYPE "OrderStatus" USING "status"::"OrderStatus";

ALTER TABLE "DiscountCode" ALTER COLUMN "type" TYPE "DiscountType" USING "type"::"DiscountType";

ALTER TABLE "Page" ALTER COLUMN "status" DROP DEFAULT,
  ALTER COLUMN "status" TYPE "PublishStatus" USING "status"::"PublishStatus",
  ALTER COLUMN "status" SET DEFAULT 'published';

ALTER TABLE "ServiceOffering" ALTER COLUMN "status" DROP DEFAULT,
  ALTER COLUMN "status" TYPE "PublishStatus" USING "status"::"PublishStatus",
  ALTER COLUMN "status" SET DEFAULT 'published';

ALTER TABLE "Cart" ALTER COLUMN "status" DROP DEFAULT,
  ALTER COLUMN "status" TYPE "CartStatus" USING "status"::"CartStatus",
  ALTER COLUMN "status" SET DEFAULT 'open';
