import type { Db } from '../../db/client.ts';
import { pagePath } from '../../domain/public-paths.ts';
import { HOME_PAGE_SLUG, loadInfoPage, type PageRecord } from '../../services/storefront.ts';
import { renderDocument } from '../document.tsx';
import type { JsonLd } from '../json-ld.ts';
import { renderLayout } from '../layout.tsx';
import { notFound, page, type PageOutcome } from '../outcome.ts';
import { Prose } from '../prose.tsx';
import { sanitizeStoredHtml } from '../sanitize.ts';
import type { View } from '../view.ts';

export async function infoPage(db: Db, base: string, slug: string): Promise<PageOutcome> {
  const { chrome, page: record } = await loadInfoPage(db, slug);
  if (!record) return notFound(chrome);
  const view: View = { base, chrome };
  // The published home page is the front page; its canonical URL is "/" wherever it is reached.
  const content = await cmsContent(db, record, view);
  const html = renderDocument({
    view,
    title: record.title,
    description: content.description,
    path: record.slug === HOME_PAGE_SLUG ? '/' : pagePath(record.slug),
    ogType: 'article',
    jsonLd: content.jsonLd,
    children: (
      <>
        <h1>{record.title}</h1>
        {content.body}
      </>
    ),
  });
  return page(html, chrome, record.updatedAt, content.updatedAt);
}

/**
 * A CMS page's content: its layout's enabled sections in order; without any, its body; without a body, its stored
 * vibeHtml after the sanitizer's allow-list.
 */
export async function cmsContent(db: Db, record: PageRecord, view: View) {
  const layout = await renderLayout(db, record.layout, view);
  const description = firstParagraph(record.body);
  if (layout) return { body: <>{layout.nodes}</>, updatedAt: layout.updatedAt, jsonLd: layout.jsonLd, description };
  const none: JsonLd[] = [];
  if (record.body.trim() || !record.vibeHtml) return { body: <Prose text={record.body} />, updatedAt: null, jsonLd: none, description };
  return { body: <div class="prose" dangerouslySetInnerHTML={{ __html: sanitizeStoredHtml(record.vibeHtml) }} />, updatedAt: null, jsonLd: none, description };
}

/** The first paragraph of a body, for the meta description. */
const firstParagraph = (body: string) =>
  body
    .split(/\n\s*\n/)
    .map((b) => b.trim())
    .find((b) => b && !b.startsWith('## ')) ?? null;
