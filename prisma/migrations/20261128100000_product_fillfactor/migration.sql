-- Every checkout changes its products' stock (and updatedAt), neither of them indexed. With free room on the row's
-- page, PostgreSQL writes the new row version there as a heap-only tuple and touches none of the nine indexes,
-- among them the trigram index of searchText; on a full page the update inserts an entry into every index. The
-- default fillfactor 100 fills pages completely; 90 leaves a tenth of each page for such updates
-- (docs/performance.md, "Writes"). Applies to pages written from now on; a VACUUM FULL or CLUSTER rewrites the
-- existing ones when the shop chooses. Prisma's schema has no syntax for storage parameters, so it lives here only.
ALTER TABLE "Product" SET (fillfactor = 90);
