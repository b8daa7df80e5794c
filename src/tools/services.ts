import { z } from 'zod';
import type { Tx } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { publicUrl, servicePath } from '../domain/public-paths.ts';
import { firstFreeSlug, slugify } from '../domain/slug.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { reviveSnapshot, type ReversibleEntity, type Snapshot } from '../registry/reversible.ts';
import { PublishStatus, publishStatus } from './pages.ts';
import { fieldsToChange, httpUrl, immutableSlugPatch, MAX_INT, slug, slugRef, text, timestamp } from './shared-schemas.ts';

/** Field constraints of spec §2.6 / §8, shared by create and update. */
const serviceFields = {
  title: text({ min: 2, max: 200 }),
  body: text({ min: 1, max: 100_000 }).describe('Long copy.'),
  shortDescription: text({ min: 1, max: 500 }),
  priceString: text({ min: 1, max: 100 }).describe('Free display text such as "from 1.495 kr.", not a number.'),
  heroImage: httpUrl(),
  features: z.array(text({ min: 1, max: 200 })).max(50).describe('Short bullet strings.'),
  showInNav: z.boolean().describe('Stored for the admin UI; does not by itself add a header navigation link.'),
  navOrder: z.number().int().min(-MAX_INT).max(MAX_INT).describe('Ascending sort order of the public /services listing.'),
  status: PublishStatus.describe('Drafts stay off the public site until published with services.update.'),
};
const f = serviceFields;

export const ServicesCreateInput = z.strictObject({
  title: f.title,
  body: f.body,
  slug: slug().optional().describe('Derived from the title when omitted (accents folded, made unique with -2, -3 …). Cannot be changed later.'),
  shortDescription: f.shortDescription.optional(),
  priceString: f.priceString.optional(),
  heroImage: f.heroImage.optional(),
  features: f.features.default([]),
  showInNav: f.showInNav.default(false),
  navOrder: f.navOrder.default(0),
  status: f.status.default('published'),
});

const ServicePatch = immutableSlugPatch({
    title: f.title.optional(),
    body: f.body.optional(),
    shortDescription: f.shortDescription.nullable().optional().describe('null clears it.'),
    priceString: f.priceString.nullable().optional().describe('null clears it.'),
    heroImage: f.heroImage.nullable().optional().describe('null clears it.'),
    features: f.features.optional().describe('Replaces the whole list.'),
    showInNav: f.showInNav.optional(),
    navOrder: f.navOrder.optional(),
    status: f.status.optional().describe('"published" publishes a draft; "draft" takes a service off the public site.'),
  });

/** The read shape of a service (spec §2.6 leaves it open; docs/content.md). */
export const ServiceRecord = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  body: z.string(),
  shortDescription: z.string().nullable(),
  priceString: z.string().nullable(),
  heroImage: z.string().nullable(),
  features: z.array(z.string()),
  showInNav: z.boolean(),
  navOrder: z.number().int(),
  status: PublishStatus,
  publicUrl: z.string().describe('/services/<slug>, absolute when the service has a public base URL. Drafts are not served there yet.'),
  createdAt: timestamp(),
  updatedAt: timestamp(),
});

/** Listing order of /services: navOrder, then oldest first, so equal navOrders keep a stable order. */
export const SERVICE_ORDER: Prisma.ServiceOfferingOrderByWithRelationInput[] = [{ navOrder: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }];

const servicePublicUrl = (ctx: ToolContext, s: string) => publicUrl(ctx.config.publicBaseUrl, servicePath(s));

/** A slug derived from the title that no service uses yet. */
async function deriveSlug(db: ToolContext['db'], title: string): Promise<string> {
  const base = slugify(title, { fallback: 'service' });
  // The base holds only [a-z0-9-], so startsWith cannot be widened by LIKE wildcards.
  const rows = await db.serviceOffering.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } });
  return firstFreeSlug(base, new Set(rows.map((r) => r.slug)));
}

async function loadSnapshot(db: ToolContext['db'], id: string): Promise<Snapshot | null> {
  const row = await db.serviceOffering.findUnique({ where: { id } });
  return row ? (plainJson(row) as Snapshot) : null;
}

export const serviceEntity: ReversibleEntity = {
  entityType: 'service',
  tools: ['services.update'],
  load: loadSnapshot,
  async restore(tx: Tx, id, before) {
    if (before === null) {
      await tx.serviceOffering.deleteMany({ where: { id } });
      return;
    }
    const data = reviveSnapshot(before, { bigint: ['navOrder'], date: ['createdAt'], omit: ['id', 'updatedAt'] });
    await tx.serviceOffering.update({ where: { id }, data: data as Prisma.ServiceOfferingUncheckedUpdateInput });
  },
};

export const serviceTools = [
  defineTool({
    name: 'services.list',
    title: 'List service offerings',
    description:
      'Lists service offerings with every field, drafts included (filter with status), in the order of the public /services listing: navOrder ascending.',
    scope: 'pages:read',
    input: z.strictObject({ status: PublishStatus.optional() }),
    output: z.array(ServiceRecord),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler({ status }, ctx) {
      const rows = await ctx.db.serviceOffering.findMany({ where: status ? { status } : {}, orderBy: SERVICE_ORDER });
      return rows.map((r) => ({
        ...r,
        navOrder: Number(r.navOrder),
        status: publishStatus(r.status),
        publicUrl: servicePublicUrl(ctx, r.slug),
        createdAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
      }));
    },
  }),

  defineTool({
    name: 'services.create',
    title: 'Create a service offering',
    description:
      'Creates a service offering (status published unless given). Without slug, one is derived from the title and made unique; a given slug that is taken is a 409. A draft stays off the public /services listing until services.update publishes it.',
    scope: 'pages:write',
    input: ServicesCreateInput,
    output: z.object({ id: z.string(), slug: z.string(), status: PublishStatus, publicUrl: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async handler({ slug: given, navOrder, ...rest }, ctx) {
      if (given !== undefined && (await ctx.db.serviceOffering.findUnique({ where: { slug: given }, select: { id: true } }))) {
        throw new AppError('conflict', `The slug "${given}" is already taken by another service.`);
      }
      const s = given ?? (await deriveSlug(ctx.db, rest.title));
      const created = await ctx.db.serviceOffering.create({ data: { ...rest, slug: s, navOrder: BigInt(navOrder) } });
      ctx.audit({ entityType: 'service', entityId: created.id, before: null, after: plainJson(created) });
      return { id: created.id, slug: created.slug, status: publishStatus(created.status), publicUrl: servicePublicUrl(ctx, created.slug) };
    },
  }),

  defineTool({
    name: 'services.update',
    title: 'Update a service offering',
    description:
      'Applies a partial update; fields left out of patch are unchanged. patch.status "published" publishes a draft. The slug cannot be changed (422 slug_immutable). Reversible with audit.revert.',
    scope: 'pages:write',
    input: z.strictObject({ slug: slugRef(), patch: ServicePatch }),
    output: z.object({ id: z.string(), slug: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    async handler({ slug: s, patch }, ctx) {
      const { navOrder, ...rest } = fieldsToChange(s, patch, 'service');
      const current = await ctx.db.serviceOffering.findUnique({ where: { slug: s } });
      if (!current) throw new AppError('not_found', `No service with slug "${s}".`);
      const updated = await ctx.db.serviceOffering.update({
        where: { id: current.id },
        data: { ...rest, ...(navOrder !== undefined ? { navOrder: BigInt(navOrder) } : {}) },
      });
      ctx.audit({ entityType: 'service', entityId: current.id, before: plainJson(current), after: plainJson(updated) });
      return { id: updated.id, slug: updated.slug };
    },
  }),
];
