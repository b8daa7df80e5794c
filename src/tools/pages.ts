import { z } from 'zod';
import { asStoredLayout, Layout, StoredLayout } from '../domain/layout-sections/layout.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { defineTool } from '../registry/define-tool.ts';
import { PublishStatus } from '../schemas/publish-status.ts';
import { slug, slugRef, text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { deletePage, findPage, listPages, pageEntity, pageSnapshot, setPageLayout, upsertPage } from '../services/pages.ts';

const PageListItem = z.object({ id: z.string(), slug: z.string(), title: z.string(), status: PublishStatus, updatedAt: timestamp() });
const LayoutOut = StoredLayout.nullable();

export const pageTools = [
  defineTool({
    name: 'pages.list',
    title: 'List CMS pages',
    description: 'Lists every CMS page, drafts included, ordered by slug. Public path of a published page: /info/<slug>.',
    scope: 'pages:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({}),
    output: z.array(PageListItem),
    handler: async (_input, ctx) => (await listPages(ctx.db)).map((r) => plainJson(r)),
  }),

  defineTool({
    name: 'pages.upsert',
    title: 'Create or update a CMS page',
    description:
      'Creates the page when the slug is new, otherwise replaces its title and body. The layout is kept; change it with pages.set_layout.',
    scope: 'pages:write',
    kind: 'write',
    idempotent: true,
    errors: ['conflict'],
    audit: { reversible: [pageEntity] },
    input: z.strictObject({
      slug: slug().describe('Unique. Public path: /info/<slug>.'),
      title: text({ min: 2, max: 200 }),
      body: text({ min: 10, max: 100_000 }).describe("Simple markdown-like text: '## ' headers and paragraphs separated by blank lines."),
      status: PublishStatus.optional().describe('Omit to keep the current status (new pages: published).'),
    }),
    output: z.object({ id: z.string(), slug: z.string(), title: z.string(), status: PublishStatus }),
    async handler(input, ctx) {
      const { before, saved } = await upsertPage(ctx.db, input);
      ctx.audit({ entityType: 'page', entityId: saved.id, before: before && pageSnapshot(before), after: pageSnapshot(saved) });
      return { id: saved.id, slug: saved.slug, title: saved.title, status: saved.status };
    },
  }),

  defineTool({
    name: 'pages.delete',
    title: 'Delete a CMS page',
    description: 'Deletes a page (and its layout); a revert re-creates it as long as its slug is still free. Needs confirm: true.',
    scope: 'pages:write',
    kind: 'write',
    destructive: true,
    idempotent: true,
    requiresConfirm: true,
    errors: ['not_found'],
    audit: { reversible: [pageEntity] },
    input: z.strictObject({ slug: slugRef() }),
    output: z.object({ ok: z.literal(true), slug: z.string() }),
    async handler({ slug: s }, ctx) {
      const page = await deletePage(ctx.db, s);
      ctx.audit({ entityType: 'page', entityId: page.id, before: pageSnapshot(page), after: null });
      return { ok: true as const, slug: s };
    },
  }),

  defineTool({
    name: 'pages.get_layout',
    title: 'Get a page layout',
    description: 'Returns the Visual Builder layout of a page (drafts included), or null when the page renders from its body.',
    scope: 'pages:read',
    kind: 'read',
    errors: ['not_found'],
    input: z.strictObject({ slug: slugRef() }),
    output: z.object({ layout: LayoutOut }),
    handler: async ({ slug: s }, ctx) => ({ layout: asStoredLayout((await findPage(ctx.db, s)).layout) }),
  }),

  defineTool({
    name: 'pages.set_layout',
    title: 'Set a page layout',
    description:
      'Replaces the Visual Builder layout of a page; null removes it so the page renders from its body. Every section is checked against the whitelist and the props schema of its key; omitted props get their defaults, and the stored (completed) layout is returned. Needs confirm: true.',
    scope: 'pages:write',
    kind: 'write',
    destructive: true,
    idempotent: true,
    requiresConfirm: true,
    errors: ['not_found', 'invalid_image_url', 'invalid_layout'],
    audit: { reversible: [pageEntity] },
    input: z.strictObject({ slug: slugRef(), layout: Layout.nullable() }),
    output: z.object({ slug: z.string(), layout: LayoutOut, updatedAt: timestamp() }),
    async handler({ slug: s, layout }, ctx) {
      const { before, after } = await setPageLayout(ctx.db, s, layout);
      ctx.audit({ entityType: 'page', entityId: before.id, before: pageSnapshot(before), after: pageSnapshot(after) });
      return { slug: after.slug, layout: asStoredLayout(after.layout), updatedAt: after.updatedAt.toISOString() };
    },
  }),
];
