import { z } from 'zod';
import { queryRows, type Tx } from '../db/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { reviveSnapshot, type ReversibleEntity, type Snapshot } from '../registry/reversible.ts';
import { slug, slugRef, text } from './shared-schemas.ts';

/** Products created without a category land here, so every product has one (spec §2.1: category is an object). */
export const FALLBACK_CATEGORY = { slug: 'uncategorized', name: 'Uncategorized', description: null } as const;

/** The category id for a product write: by id or slug (which must agree when both are given), else the fallback. */
export async function resolveCategoryId(db: ToolContext['db'], ref: { categoryId?: string; categorySlug?: string }): Promise<string> {
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

const CategoryListItem = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  productCount: z.number().int().min(0),
});

async function loadSnapshot(db: ToolContext['db'], id: string): Promise<Snapshot | null> {
  const row = await db.category.findUnique({ where: { id } });
  return row ? (plainJson(row) as Snapshot) : null;
}

export const categoryEntity: ReversibleEntity = {
  entityType: 'category',
  tools: ['categories.upsert', 'categories.delete'],
  load: loadSnapshot,
  async restore(tx: Tx, id, snapshot) {
    if (snapshot === null) {
      // The upsert created it; undoing that is only possible while no product uses it.
      if (await tx.product.count({ where: { categoryId: id, deletedAt: null } })) {
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

type CategoryListRow = z.input<typeof CategoryListItem>;

/**
 * Counts come from "CategoryProductCount", which a trigger on "Product" keeps exact in the transaction of every
 * product change (migration 20261126030000_category_product_counts): counting per call scanned every live product
 * and grew with the catalog (docs/performance.md).
 */
async function listCategories(db: ToolContext['db']): Promise<CategoryListRow[]> {
  const rows = await queryRows<{ id: string; slug: string; name: string; description: string | null; productCount: bigint | string }>(db, Prisma.sql`
    SELECT c.id, c.slug, c.name, c.description, COALESCE(n."liveProducts", 0) AS "productCount"
    FROM "Category" c LEFT JOIN "CategoryProductCount" n ON n."categoryId" = c.id
    ORDER BY c.name, c.id`, { prepareAs: 'categories_list' });
  return rows.map((r) => ({ ...r, productCount: Number(r.productCount) }));
}

export const categoryTools = [
  defineTool({
    name: 'categories.list',
    title: 'List categories',
    description: 'Lists all categories by name, each with the number of live (not soft-deleted) products in it.',
    scope: 'categories:read',
    anonymous: true,
    input: z.strictObject({}),
    output: z.array(CategoryListItem),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: (_input, ctx) => listCategories(ctx.db),
  }),

  defineTool({
    name: 'categories.upsert',
    title: 'Create or update a category',
    description: 'Creates the category when the slug is new; otherwise updates its name (and description when given). Reversible with audit.revert.',
    scope: 'categories:write',
    input: z.strictObject({
      slug: slug(),
      name: text({ min: 2, max: 200 }),
      description: text({ max: 5000 }).nullable().optional().describe('Omit to keep the current description; null clears it.'),
    }),
    output: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    async handler({ slug: s, name, description }, ctx) {
      const before = await ctx.db.category.findUnique({ where: { slug: s } });
      const saved = before
        ? await ctx.db.category.update({ where: { id: before.id }, data: { name, ...(description !== undefined ? { description } : {}) } })
        : await ctx.db.category.create({ data: { slug: s, name, description: description ?? null } });
      ctx.audit({ entityType: 'category', entityId: saved.id, before: before && plainJson(before), after: plainJson(saved) });
      return { id: saved.id, slug: saved.slug, name: saved.name };
    },
  }),

  defineTool({
    name: 'categories.delete',
    title: 'Delete a category',
    description: 'Deletes a category. Refused (422 category_not_empty) while live products remain in it: move or delete them first. Needs confirm: true.',
    scope: 'categories:write',
    requiresConfirm: true,
    input: z.strictObject({ slug: slugRef() }),
    output: z.object({ ok: z.literal(true), slug: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    async handler({ slug: s }, ctx) {
      const category = await ctx.db.category.findUnique({ where: { slug: s } });
      if (!category) throw new AppError('not_found', `No category with slug "${s}".`);
      const live = await ctx.db.product.count({ where: { categoryId: category.id, deletedAt: null } });
      if (live > 0) {
        throw new AppError('category_not_empty', `Category "${s}" still has ${live} product(s); move or delete them first.`);
      }
      // Soft-deleted products keep their data but let go of the category (restoring one uses the fallback).
      await ctx.db.product.updateMany({ where: { categoryId: category.id }, data: { categoryId: null } });
      await ctx.db.category.delete({ where: { id: category.id } });
      ctx.audit({ entityType: 'category', entityId: category.id, before: plainJson(category), after: null });
      return { ok: true as const, slug: s };
    },
  }),
];
