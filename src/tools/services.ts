import { z } from 'zod';
import { plainJson } from '../domain/json-snapshot.ts';
import { publicUrl, servicePath } from '../domain/public-paths.ts';
import { defineTool, type ReadContext } from '../registry/define-tool.ts';
import { MAX_INT } from '../schemas/numbers.ts';
import { fieldsToChange, immutableSlugPatch } from '../schemas/patch.ts';
import { PublishStatus } from '../schemas/publish-status.ts';
import { slug, slugRef, text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { imageRef } from '../schemas/web.ts';
import { createService, listServices, serviceEntity, serviceSnapshot, updateService } from '../services/service-offerings.ts';

/** Field constraints shared by create and update (docs/content.md). */
const serviceFields = {
  title: text({ min: 2, max: 200 }),
  body: text({ min: 1, max: 100_000 }).describe('Long copy.'),
  shortDescription: text({ min: 1, max: 500 }),
  priceString: text({ min: 1, max: 100 }).describe('Free display text such as "from 1.495 kr.", not a number.'),
  heroImage: imageRef(),
  features: z.array(text({ min: 1, max: 200 })).max(50).describe('Short bullet strings.'),
  showInNav: z.boolean().describe('Stored for the admin UI; does not by itself add a header navigation link.'),
  navOrder: z.number().int().min(-MAX_INT).max(MAX_INT).describe('Ascending sort order of the public /services listing.'),
  status: PublishStatus.describe('Drafts stay off the public site until published with services.update.'),
};
const f = serviceFields;

const ServicesCreateInput = z.strictObject({
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

/** The read shape of a service (docs/content.md). */
const ServiceRecord = z.object({
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

const servicePublicUrl = (ctx: Pick<ReadContext, 'config'>, s: string) => publicUrl(ctx.config.publicBaseUrl, servicePath(s));

export const serviceTools = [
  defineTool({
    name: 'services.list',
    title: 'List service offerings',
    description:
      'Lists service offerings with every field, drafts included (filter with status), in the order of the public /services listing: navOrder ascending.',
    scope: 'pages:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({ status: PublishStatus.optional() }),
    output: z.array(ServiceRecord),
    handler: async ({ status }, ctx) =>
      (await listServices(ctx.db, status)).map((r) => ({ ...plainJson(r), publicUrl: servicePublicUrl(ctx, r.slug) })),
  }),

  defineTool({
    name: 'services.create',
    title: 'Create a service offering',
    description:
      'Creates a service offering; a given slug that is taken is a 409.',
    scope: 'pages:write',
    kind: 'write',
    errors: ['conflict', 'invalid_image_url'],
    audit: { appendOnly: ['service'] },
    input: ServicesCreateInput,
    output: z.object({ id: z.string(), slug: z.string(), status: PublishStatus, publicUrl: z.string() }),
    async handler(input, ctx) {
      const created = await createService(ctx.db, input);
      ctx.audit({ entityType: 'service', entityId: created.id, before: null, after: serviceSnapshot(created) });
      return { id: created.id, slug: created.slug, status: created.status, publicUrl: servicePublicUrl(ctx, created.slug) };
    },
  }),

  defineTool({
    name: 'services.update',
    title: 'Update a service offering',
    description:
      'Applies a partial update; fields left out of patch are unchanged.',
    scope: 'pages:write',
    kind: 'write',
    idempotent: true,
    errors: ['not_found', 'slug_immutable', 'nothing_to_change', 'invalid_image_url'],
    audit: { reversible: [serviceEntity] },
    input: z.strictObject({ slug: slugRef(), patch: ServicePatch }),
    output: z.object({ id: z.string(), slug: z.string() }),
    async handler({ slug: s, patch }, ctx) {
      const { before, after } = await updateService(ctx.db, s, fieldsToChange(s, patch, 'service'));
      ctx.audit({ entityType: 'service', entityId: before.id, before: serviceSnapshot(before), after: serviceSnapshot(after) });
      return { id: after.id, slug: after.slug };
    },
  }),
];
