import type { Chrome } from '../services/storefront.ts';
import { newestOf } from './format.ts';
import { pageLanguage } from './messages.ts';
import { prepare, type Prepared } from './respond.ts';

/** What a page handler produced: a page to send (with what its caching headers derive from), or a 404. */
export type PageOutcome =
  | { kind: 'page'; content: Prepared; language: string; lastModified: string | null }
  | { kind: 'not-found'; chrome: Chrome };

export const notFound = (chrome: Chrome): PageOutcome => ({ kind: 'not-found', chrome });

export const page = (html: string, chrome: Chrome, ...stamps: (string | null | undefined)[]): PageOutcome => ({
  kind: 'page',
  content: prepare(html),
  language: pageLanguage(chrome.shop.language),
  lastModified: newestOf([chromeUpdatedAt(chrome), ...stamps]),
});

/** Header and footer change the page too, so their timestamps count towards its Last-Modified. */
export function chromeUpdatedAt(chrome: Chrome): string | null {
  return newestOf([chrome.shop.updatedAt, ...chrome.services.map((s) => s.updatedAt), ...chrome.pages.map((p) => p.updatedAt)]);
}
