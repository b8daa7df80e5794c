import type { DbClient } from '../db/client.ts';
import { asStoredLayout } from '../domain/layout-sections/layout.ts';
import { pagePath, servicePath } from '../domain/public-paths.ts';
import { AppError } from '../errors.ts';
import { SERVICE_ORDER } from './service-offerings.ts';

// The public site as an anonymous agent sees it: published content only. A draft is answered exactly like an
// unknown slug, so the public tools do not reveal that unpublished content exists.

const PUBLISHED = { status: 'published' } as const;

/** The service fields the public site shows beyond slug, title and body. */
const SERVICE_DETAILS = { shortDescription: true, priceString: true, heroImage: true, features: true } as const;

export async function listPublicSite(db: DbClient) {
  const [pages, services] = await Promise.all([
    db.page.findMany({ where: PUBLISHED, select: { slug: true, title: true, updatedAt: true }, orderBy: [{ title: 'asc' }, { slug: 'asc' }] }),
    db.serviceOffering.findMany({
      where: PUBLISHED,
      select: { slug: true, title: true, shortDescription: true, priceString: true, heroImage: true, showInNav: true, navOrder: true, updatedAt: true },
      orderBy: SERVICE_ORDER,
    }),
  ]);
  return {
    pages: pages.map((p) => ({ ...p, path: pagePath(p.slug), updatedAt: p.updatedAt.toISOString() })),
    services: services.map((s) => ({ ...s, path: servicePath(s.slug), navOrder: Number(s.navOrder), updatedAt: s.updatedAt.toISOString() })),
  };
}

export async function getPublicPage(db: DbClient, slug: string, kind: 'page' | 'service') {
  if (kind === 'page') {
    const page = await db.page.findFirst({ where: { slug, ...PUBLISHED }, select: { slug: true, title: true, body: true, layout: true, updatedAt: true } });
    if (!page) throw new AppError('not_found', `No published page at ${pagePath(slug)}.`);
    const { layout, updatedAt, ...rest } = page;
    return { kind, ...rest, path: pagePath(page.slug), layout: asStoredLayout(layout), updatedAt: updatedAt.toISOString(), service: null };
  }
  const service = await db.serviceOffering.findFirst({
    where: { slug, ...PUBLISHED },
    select: { slug: true, title: true, body: true, updatedAt: true, ...SERVICE_DETAILS },
  });
  if (!service) throw new AppError('not_found', `No published service at ${servicePath(slug)}.`);
  const { slug: found, title, body, updatedAt, ...details } = service;
  return { kind, slug: found, path: servicePath(found), title, body, layout: null, updatedAt: updatedAt.toISOString(), service: details };
}
