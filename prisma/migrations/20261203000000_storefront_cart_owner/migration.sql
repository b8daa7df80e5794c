-- Storefront carts belong to a browser: their owner id (`web_…`, from the shop's signed cookie) is kept in
-- "apiKeyId" like a key's id, and a page finds the owner's open cart by it.
CREATE INDEX "Cart_apiKeyId_status_idx" ON "Cart"("apiKeyId", status);
