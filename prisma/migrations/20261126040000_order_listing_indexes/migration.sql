-- orders.list and customers' recent orders sort by ("createdAt" DESC, id DESC). With id in the index, PostgreSQL
-- reads exactly the rows it returns, newest first, whatever the status mix; without it, it walked
-- "Order_createdAt_idx" filtering on status (every order of other statuses, read and dropped: ~240 rows for 20 in
-- the bench, and all of them for a rare status) and sorted each run of equal timestamps.
DROP INDEX "Order_status_createdAt_idx";
CREATE INDEX "Order_status_createdAt_id_idx" ON "Order"("status", "createdAt", "id");

DROP INDEX "Order_createdAt_idx";
CREATE INDEX "Order_createdAt_id_idx" ON "Order"("createdAt", "id");

-- Hand-written (an expression index cannot be declared in schema.prisma).
DROP INDEX "Order_email_lower_createdAt_idx";
CREATE INDEX "Order_email_lower_createdAt_id_idx" ON "Order"(lower("email"), "createdAt", "id");
