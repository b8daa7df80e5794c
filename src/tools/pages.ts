import { z } from 'zod';
import type { Tx } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { asStoredLayout, Layout, StoredLayout } from '../domain/layout-sections/layout.ts';
import { plainJson, toJsonValue } from '../domain/json-snapshot.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { reviveSnapshot, type ReversibleEntity, type Snapshot } from '../registry/reversible.ts';
import { slug, slugRef, text, timestamp } from './shared-schemas.ts';

/** Status of pages and services (spec §3): drafts never appear on the public site. */
export const PublishStatus = z.enum(['draft', 'published']);
/** The status column is plain text; only the tools write it, always from PublishStatus. */
export const publishStatus = (column: string) => column as z.infer<typeof PublishStatus>;

const PageListItem = z.object({ id: z.string(), slug: z.string(), title: z.string(), status: PublishStatus, updatedAt: timestamp() });
const LayoutOut = StoredLayout.nullable();

async function findPage(db: ToolContext['db'], s: string) {
  const page = await db.page.findUnique({ where: { slug: s } });
  if (!page) throw new AppError('not_found', `No page with slug "${s}".`);
  return page;
}

async function loadSnapshot(db: ToolContext['db'], id: string): Promise<Snapshot | null> {
  const row = await db.page.findUnique({ where: { id } });
  return row ? (plainJson(row) as Snapshot) : null;
}

export const pageEntity: ReversibleEntity = {
  entityType: 'page',
  tools: ['pages.upsert', 'pages.delete', 'pages.set_layout'],
  load: loadSnapshot,
  async restore(tx: Tx, id, before) {
    if (before === null) {
      await tx.page.deleteMany({ where: { id } });
      return;
    }
    const data = reviveSnapshot(before, { date: ['createdAt'], omit: ['id', 'updatedAt'] }) as Omit<Prisma.PageUncheckedCreateInput, 'layout'>;
    // A deleted page's slug may have been reused since; re-creating it would then collide.
    const holder = await tx.page.findFirst({ where: { slug: data.slug, NOT: { id } }, select: { id: true } });
    if (holder) throw new AppError('conflict', `Another page now uses the slug "${data.slug}"; delete or rename it first.`);
    const row = { ...data, layout: toJsonValue(before.layout) };
    await tx.page.upsert({ where: { id }, update: row, create: { ...row, id } });
  },
};

export const pageTools = [
  defineTool({
    name: 'pages.list',
    title: 'List CMS pages',
    description: 'Lists every CMS page, drafts included, ordered by slug. Public path of a published page: /info/<slug>.',
    scope: 'pages:read',
    input: z.strictObject({}),
    output: z.array(PageListItem),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler(_input, ctx) {
      const rows = await ctx.db.page.findMany({
        select: { id: true, slug: true, title: true, status: true, updatedAt: true },
        orderBy: { slug: 'asc' },
      });
      return rows.map((r) => ({ ...r, status: publishStatus(r.status), updatedAt: r.updatedAt.toISOString() }));
    },
  }),

  defineTool({
    name: 'pages.upsert',
    title: 'Create or update a CMS page',
    description:
      'Creates the page when the slug is new (status published unless given), otherwise replaces its title and body and sets status only when given. The layout is kept; change it with pages.set_layout. Reversible with audit.revert.',
    scope: 'pages:write',
    input: z.strictObject({
      slug: slug().describe('Unique; lowercase letters, digits and hyphens. Public path: /info/<slug>.'),
      title: text({ min: 2, max: 200 }),
      body: text({ min: 10, max: 100_000 }).describe("Simple markdown-like text: '## ' headers and paragraphs separated by blank lines."),
      status: PublishStatus.optional().describe('Omit to keep the current status (new pages: published).'),
    }),
    output: z.object({ id: z.string(), slug: z.string(), title: z.string(), status: PublishStatus }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    async handler({ slug: s, title, body, status }, ctx) {
      const before = await ctx.db.page.findUnique({ where: { slug: s } });
      const saved = before
        ? await ctx.db.page.update({ where: { id: before.id }, data: { title, body, ...(status ? { status } : {}) } })
        : await ctx.db.page.create({ data: { slug: s, title, body, status: status ?? 'published' } });
      ctx.audit({ entityType: 'page', entityId: saved.id, before: before && plainJson(before), after: plainJson(saved) });
      return { id: saved.id, slug: saved.slug, title: saved.title, status: publishStatus(saved.status) };
    },
  }),

  defineTool({
    name: 'pages.delete',
    title: 'Delete a CMS page',
    description: 'Deletes a page (and its layout). Needs confirm: true. audit.revert re-creates it as long as its slug is still free.',
    scope: 'pages:write',
    requiresConfirm: true,
    input: z.strictObject({ slug: slugRef() }),
    output: z.object({ ok: z.literal(true), slug: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    async handler({ slug: s }, ctx) {
      const page = await findPage(ctx.db, s);
      await ctx.db.page.delete({ where: { id: page.id } });
      ctx.audit({ entityType: 'page', entityId: page.id, before: plainJson(page), after: null });
      return { ok: true as const, slug: s };
    },
  }),

  defineTool({
    name: 'pages.get_layout',
    title: 'Get a page layout',
    description: 'Returns the Visual Builder layout of a page (drafts included), or null when the page renders from its body.',
    scope: 'pages:read',
    input: z.strictObject({ slug: slugRef() }),
    output: z.object({ layout: LayoutOut }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler({ slug: s }, ctx) {
      const page = await findPage(ctx.db, s);
      return { layout: asStoredLayout(page.layout) };
    },
  }),

  defineTool({
    name: 'pages.set_layout',
    title: 'Set a page layout',
    description:
      'Replaces the Visual Builder layout of a page; null removes it so the page renders from its body. Every section is checked against the whitelist and the props schema of its key; omitted props get their defaults, and the stored (completed) layout is returned. Needs confirm: true; reversible with audit.revert.',
    scope: 'pages:write',
    requiresConfirm: true,
    input: z.strictObject({ slug: slugRef(), layout: Layout.nullable() }),
    output: z.object({ slug: z.string(), layout: LayoutOut, updatedAt: timestamp() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    async handler({ slug: s, layout }, ctx) {
      const page = await findPage(ctx.db, s);
      const saved = await ctx.db.page.update({ where: { id: page.id }, data: { layout: toJsonValue(layout) } });
      ctx.audit({ entityType: 'page', entityId: page.id, before: plainJson(page), after: plainJson(saved) });
      return { slug: saved.slug, layout: asStoredLayout(saved.layout), updatedAt: saved.updatedAt.toISOString() };
    },
  }),
];
