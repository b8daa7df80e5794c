// Shared by the storefront tests: a seeded app, and reading what a page embeds.
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { seedDemo } from '../../src/cli/seed/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

export const BASE = 'https://shop.example.com';

/** The app with PUBLIC_BASE_URL set (canonical URLs, JSON-LD and sitemaps use it) on the demo store. */
export async function seededStorefront(): Promise<{ t: TestApp; key: string }> {
  const t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } });
  await seedDemo(t.db);
  return { t, key: await t.key() };
}

export const get = (t: TestApp, url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

/** A 200 HTML page's body; fails the test with the status otherwise. */
export function html(res: LightMyRequestResponse): string {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  return res.body;
}

/** Every JSON-LD block of a page, parsed. */
export function jsonLdOf(page: string): Record<string, unknown>[] {
  return [...page.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)].map((m) => JSON.parse(m[1]) as Record<string, unknown>);
}

/** The product slugs a page links to, in document order, each once. */
export const productLinks = (page: string) => [...new Set([...page.matchAll(/<main[\s\S]*?<\/main>/g)].flatMap((m) => [...m[0].matchAll(/href="\/products\/([^"]+)"/g)].map((x) => x[1])))];
