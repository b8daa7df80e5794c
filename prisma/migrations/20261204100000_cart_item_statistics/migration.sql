-- A cart holds a handful of lines. Left to ANALYZE, the number of lines per cart is estimated from whatever carts
-- the table holds at the time; one cart of thousands of lines (an agent's test, a bulk import) made it ~500, and the
-- generic plan of the checkout's prepared cart read then hashed every "ProductVariant" and "Product" row instead of
-- looking up the cart's lines by key: 35 ms per checkout instead of 0.3 (docs/performance.md, "Writes" item 22).
-- Fixing the statistic to five lines per cart (distinct carts = 20 % of the rows) keeps every cart statement on its
-- indexes whatever the table's history; ANALYZE keeps an n_distinct set this way.
ALTER TABLE "CartItem" ALTER COLUMN "cartId" SET (n_distinct = -0.2);
ANALYZE "CartItem";
