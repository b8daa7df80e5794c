import { queryRows, type DbClient, type Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { reviveSnapshot, type Snapshot } from '../domain/revert.ts';
import { AppError } from '../errors.ts';
import { Prisma, type Category } from '../generated/prisma/client.ts';
import type { ReversibleEntity } from './reversible.ts';

/** Products created without a category land here, so every product has one (a product's category is an object). */
const FALLBACK_CATEGORY = { slug: 'uncategorized', name: 'Uncategorized', description: null } as const;

/** The category id for a product write: by id or slug (which must agree when both are given), else the fallback. */
export async function resolveCategoryId(db: DbClient, ref: { categoryId?: string; categorySlug?: string }): Promise<string> {
  const { categoryId, categorySlug } = ref;
  if (categoryId === undefined && categorySlug === undefined) {
    const fallback = await db.category.upsert({
      where: { slug: FALLBACK_CATEGORY.slug },
      update: {},
      create: FALLBACK_CATEGORY,
      select: { id: true },
    });
    return fallback.id;
  }
  const found = await db.category.findFirst({
    where: { ...(categoryId !== undefined ? { id: categoryId } : {}), ...(categorySlug !== undefined ? { slug: categorySlug } : {}) },
    select: { id: true },
  });
  if (!found) {
    const which = [categoryId && `id "${categoryId}"`, categorySlug && `slug "${categorySlug}"`].filter(Boolean).join(' and ');
    throw new AppError('not_found', `No category with ${which}.`);
  }
  return found.id;
}

export type CategoryListRow = { id: string; slug: string; name: string; description: string | null; productCount: number };

/**
 * Counts come from "CategoryProductCount", which a trigger on "Product" keeps exact in the transaction of every
 * product change (migration 20261126030000_category_product_counts): counting per call scanned every live product
 * and grew with the catalog (docs/performance.md).
 */
export async function listCategories(db: DbClient): Promise<CategoryListRow[]> {
  const rows = await queryRows<Omit<CategoryListRow, 'productCount'> & { productCount: bigint | string }>(db, Prisma.sql`
    SELECT c.id, c.slug, c.name, c.description, COALESCE(n."liveProducts", 0) AS "productCount"
    FROM "Category" c LEFT JOIN "CategoryProductCount" n ON n."categoryId" = c.id
    ORDER BY c.name, c.id`, { prepareAs: 'categories_list' });
  return rows.map((r) => ({ ...r, productCount: Number(r.productCount) }));
}

const liveProductCount = (tx: Tx, categoryId: string) => tx.product.count({ where: { categoryId, deletedAt: null } });

/** Creates the category when the slug is new, else renames it (and changes the description when given). */
export async function upsertCategory(tx: Tx, input: { slug: string; name: string; description?: string | null }) {
  const { slug, name, description } = input;
  const before = await tx.category.findUnique({ where: { slug } });
  const saved = before
    ? await tx.category.update({ where: { id: before.id }, data: { name, ...(description !== undefined ? { description } : {}) } })
    : await tx.category.create({ data: { slug, name, description: description ?? null } });
  return { before, saved };
}

/** Deletes a category without live products; soft-deleted ones keep their data but let go of it. */
export async function deleteCategory(tx: Tx, slug: string): Promise<Category> {
  const category = await tx.category.findUnique({ where: { slug } });
  if (!category) throw new AppError('not_found', `No category with slug "${slug}".`);
  const live = await liveProductCount(tx, category.id);
  if (live > 0) {
    throw new AppError('category_not_empty', `Category "${slug}" still has ${live} product(s); move or delete them first.`);
  }
  // Restoring one of those soft-deleted products later uses the fallback category.
  await tx.product.updateMany({ where: { categoryId: category.id }, data: { categoryId: null } });
  await tx.category.delete({ where: { id: category.id } });
  return category;
}

export const categorySnapshot = (row: Category): Snapshot => plainJson(row);

export const categoryEntity: ReversibleEntity = {
  entityType: 'category',
  async load(tx, id) {
    const row = await tx.category.findUnique({ where: { id } });
    return row ? categorySnapshot(row) : null;
  },
  async restore(tx, id, snapshot) {
    if (snapshot === null) {
      // The upsert created it; undoing that is only possible while no product uses it.
      if (await liveProductCount(tx, id)) {
        throw new AppError('category_not_empty', 'The category created by this entry now has products; move them first.');
      }
      await tx.product.updateMany({ where: { categoryId: id }, data: { categoryId: null } });
      await tx.category.delete({ where: { id } });
      return;
    }
    const data = reviveSnapshot(snapshot, { date: ['createdAt'], omit: ['id', 'updatedAt'] });
    await tx.category.upsert({ where: { id }, update: data, create: { id, ...(data as { slug: string; name: string }) } });
  },
};
