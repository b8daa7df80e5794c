import { z } from 'zod';
import { defineTool } from '../registry/define-tool.ts';
import { slug, slugRef, text } from '../schemas/text.ts';
import { categoryEntity, categorySnapshot, deleteCategory, listCategories, upsertCategory } from '../services/categories.ts';

const CategoryListItem = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  productCount: z.number().int().min(0),
});

export const categoryTools = [
  defineTool({
    name: 'categories.list',
    title: 'List categories',
    description: 'Lists all categories by name, each with the number of live (not soft-deleted) products in it.',
    scope: 'categories:read',
    anonymous: true,
    kind: 'read',
    errors: [],
    input: z.strictObject({}),
    output: z.array(CategoryListItem),
    handler: (_input, ctx) => listCategories(ctx.db),
  }),

  defineTool({
    name: 'categories.upsert',
    title: 'Create or update a category',
    description: 'Creates the category when the slug is new; otherwise updates its name (and description when given).',
    scope: 'categories:write',
    kind: 'write',
    idempotent: true,
    errors: ['conflict'],
    audit: { reversible: [categoryEntity] },
    input: z.strictObject({
      slug: slug(),
      name: text({ min: 2, max: 200 }),
      description: text({ max: 5000 }).nullable().optional().describe('Omit to keep the current description; null clears it.'),
    }),
    output: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
    async handler(input, ctx) {
      const { before, saved } = await upsertCategory(ctx.db, input);
      ctx.audit({ entityType: 'category', entityId: saved.id, before: before && categorySnapshot(before), after: categorySnapshot(saved) });
      return { id: saved.id, slug: saved.slug, name: saved.name };
    },
  }),

  defineTool({
    name: 'categories.delete',
    title: 'Delete a category',
    description: 'Deletes a category. Refused (422 category_not_empty) while live products remain in it: move or delete them first. Needs confirm: true.',
    scope: 'categories:write',
    kind: 'write',
    destructive: true,
    idempotent: true,
    requiresConfirm: true,
    errors: ['not_found', 'category_not_empty'],
    audit: { reversible: [categoryEntity] },
    input: z.strictObject({ slug: slugRef() }),
    output: z.object({ ok: z.literal(true), slug: z.string() }),
    async handler({ slug: s }, ctx) {
      const category = await deleteCategory(ctx.db, s);
      ctx.audit({ entityType: 'category', entityId: category.id, before: categorySnapshot(category), after: null });
      return { ok: true as const, slug: s };
    },
  }),
];
