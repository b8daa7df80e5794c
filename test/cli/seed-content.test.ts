import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PAGES, DEMO_SERVICES, seedContent } from '../../src/cli/seed/content.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t?.close(); });

describe('seedContent', () => {
  it('seeds pages (the home page and about with layouts, terms of sale, one draft) and services (one draft), idempotently', async () => {
    expect(await seedContent(t.db)).toEqual({ pages: DEMO_PAGES.length, services: DEMO_SERVICES.length });
    await t.db.page.update({ where: { slug: 'about' }, data: { title: 'Edited by hand' } });
    await seedContent(t.db);

    const pages = await t.db.page.findMany({ orderBy: { slug: 'asc' } });
    expect(pages.map((p) => [p.slug, p.status])).toEqual([['about', 'published'], ['home', 'published'], ['shipping', 'published'], ['summer-sale', 'draft'], ['terms', 'published']]);
    expect(pages[0].title).toBe('About us');
    expect(pages.filter((p) => p.layout !== null).map((p) => p.slug)).toEqual(['about', 'home']);
    const services = await t.db.serviceOffering.findMany({ orderBy: { navOrder: 'asc' } });
    expect(services.map((s) => [s.slug, s.status])).toEqual([['eye-exam', 'published'], ['frame-fitting', 'published'], ['lens-subscription', 'draft']]);
  });

  it('produces content the tools serve: a valid layout and no drafts on the public site', async () => {
    const key = await t.key(['pages:read']);
    const { layout } = okResult<{ layout: { sections: unknown[] } }>(await t.call('pages.get_layout', { slug: 'about' }, key));
    expect(layout.sections.length).toBeGreaterThan(1);
    const site = okResult<{ pages: { slug: string }[]; services: { slug: string }[] }>(await t.call('site.list_pages', {}));
    expect(site.pages.map((p) => p.slug).sort()).toEqual(['about', 'home', 'shipping', 'terms']);
    expect(site.services.map((s) => s.slug)).toEqual(['eye-exam', 'frame-fitting']);
  });
});
