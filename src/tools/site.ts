import { z } from 'zod';
import { StoredLayout } from '../domain/layout-sections/layout.ts';
import { defineTool } from '../registry/define-tool.ts';
import { slugRef } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { getPublicPage, listPublicSite } from '../services/site.ts';

const SitePageItem = z.object({ slug: z.string(), title: z.string(), path: z.string().describe('/info/<slug>'), updatedAt: timestamp() });

const SiteServiceItem = z.object({
  slug: z.string(),
  title: z.string(),
  path: z.string().describe('/services/<slug>'),
  shortDescription: z.string().nullable(),
  priceString: z.string().nullable(),
  heroImage: z.string().nullable(),
  showInNav: z.boolean(),
  navOrder: z.number().int(),
  updatedAt: timestamp(),
});

const ServiceDetails = z.object({
  shortDescription: z.string().nullable(),
  priceString: z.string().nullable(),
  heroImage: z.string().nullable(),
  features: z.array(z.string()),
});

const SitePage = z.object({
  kind: z.enum(['page', 'service']),
  slug: z.string(),
  path: z.string(),
  title: z.string(),
  body: z.string(),
  layout: StoredLayout.nullable().describe('Visual Builder layout; null renders from body. Always null for services.'),
  updatedAt: timestamp(),
  service: ServiceDetails.nullable().describe('The offering’s extra fields when kind is "service", else null.'),
});

export const siteTools = [
  defineTool({
    name: 'site.list_pages',
    title: 'List the public site',
    description:
      'Every published CMS page (path /info/<slug>, by title) and every published service offering (path /services/<slug>, in navOrder). Drafts are never listed. Unpaged: a site has tens of pages.',
    scope: 'pages:read',
    anonymous: true,
    input: z.strictObject({}),
    output: z.object({ pages: z.array(SitePageItem), services: z.array(SiteServiceItem) }),
    kind: 'read',
    errors: [],
    handler: (_input, ctx) => listPublicSite(ctx.db),
  }),

  defineTool({
    name: 'site.get_page',
    title: 'Get a public page',
    description:
      'One published CMS page or service offering with its title, body, layout and updatedAt. Drafts and unknown slugs are 404 not_found.',
    scope: 'pages:read',
    anonymous: true,
    input: z.strictObject({
      slug: slugRef(),
      kind: z.enum(['page', 'service']).default('page').describe('Which public path the slug belongs to: /info/<slug> (page) or /services/<slug> (service).'),
    }),
    output: SitePage,
    kind: 'read',
    errors: ['not_found'],
    handler: ({ slug: s, kind }, ctx) => getPublicPage(ctx.db, s, kind),
  }),
];
