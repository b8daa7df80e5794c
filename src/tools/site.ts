import { z } from 'zod';
import { asStoredLayout, StoredLayout } from '../domain/layout-sections/layout.ts';
import { pagePath, servicePath } from '../domain/public-paths.ts';
import { AppError } from '../errors.ts';
import { defineTool } from '../registry/define-tool.ts';
import { SERVICE_ORDER } from './services.ts';
import { slugRef, timestamp } from './shared-schemas.ts';

// The public site as an anonymous agent sees it: published content only. A draft is answered exactly like an
// unknown slug, so the public tools do not reveal that unpublished content exists.

const PUBLISHED = { status: 'published' } as const;

/** The service fields the public site shows beyond slug, title and body. */
const SERVICE_DETAILS = { shortDescription: true, priceString: true, heroImage: true, features: true } as const;

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
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler(_input, ctx) {
      const [pages, services] = await Promise.all([
        ctx.db.page.findMany({ where: PUBLISHED, select: { slug: true, title: true, updatedAt: true }, orderBy: [{ title: 'asc' }, { slug: 'asc' }] }),
        ctx.db.serviceOffering.findMany({
          where: PUBLISHED,
          select: { slug: true, title: true, shortDescription: true, priceString: true, heroImage: true, showInNav: true, navOrder: true, updatedAt: true },
          orderBy: SERVICE_ORDER,
        }),
      ]);
      return {
        pages: pages.map((p) => ({ ...p, path: pagePath(p.slug), updatedAt: p.updatedAt.toISOString() })),
        services: services.map((s) => ({ ...s, path: servicePath(s.slug), navOrder: Number(s.navOrder), updatedAt: s.updatedAt.toISOString() })),
      };
    },
  }),

  defineTool({
    name: 'site.get_page',
    title: 'Get a public page',
    description:
      'One published CMS page (kind "page", the default: /info/<slug>) or service offering (kind "service": /services/<slug>) with its title, body, layout and updatedAt. Drafts and unknown slugs are 404 not_found.',
    scope: 'pages:read',
    anonymous: true,
    input: z.strictObject({
      slug: slugRef(),
      kind: z.enum(['page', 'service']).default('page').describe('Which public path the slug belongs to: /info/<slug> (page) or /services/<slug> (service).'),
    }),
    output: SitePage,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    async handler({ slug: s, kind }, ctx) {
      if (kind === 'page') {
        const page = await ctx.db.page.findFirst({ where: { slug: s, ...PUBLISHED }, select: { slug: true, title: true, body: true, layout: true, updatedAt: true } });
        if (!page) throw new AppError('not_found', `No published page at ${pagePath(s)}.`);
        const { layout, updatedAt, ...rest } = page;
        return { kind, ...rest, path: pagePath(page.slug), layout: asStoredLayout(layout), updatedAt: updatedAt.toISOString(), service: null };
      }
      const service = await ctx.db.serviceOffering.findFirst({
        where: { slug: s, ...PUBLISHED },
        select: { slug: true, title: true, body: true, updatedAt: true, ...SERVICE_DETAILS },
      });
      if (!service) throw new AppError('not_found', `No published service at ${servicePath(s)}.`);
      const { slug: found, title, body, updatedAt, ...details } = service;
      return { kind, slug: found, path: servicePath(found), title, body, layout: null, updatedAt: updatedAt.toISOString(), service: details };
    },
  }),
];
