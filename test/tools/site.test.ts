import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PublishStatus } from '../../src/generated/prisma/client.ts';
import { toJsonValue } from '../../src/db/json-value.ts';
import { Layout } from '../../src/domain/layout-sections/layout.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { okResult } from '../helpers/calls.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key();
});
afterAll(async () => { await t?.close(); });

const LAYOUT = Layout.parse({ sections: [{ id: 'top', key: 'hero', props: { title: 'Welcome' } }] });

// Written straight to the database: the write tools have their own tests, and this runs before every test.
beforeEach(async () => {
  await resetTables(t.db, 'Page', 'ServiceOffering');
  const page = (slug: string, title: string, status: PublishStatus = 'published') => ({ slug, title, body: `## ${title}\n\nBody of ${slug}.`, status });
  await t.db.page.createMany({ data: [page('shipping', 'Shipping'), { ...page('about', 'About us'), layout: toJsonValue(LAYOUT) }, page('secret-sale', 'Secret sale', 'draft')] });
  const service = (slug: string, navOrder: number, status: PublishStatus = 'published') =>
    ({ slug, title: `Service ${slug}`, body: `Long copy of ${slug}.`, navOrder: BigInt(navOrder), status, shortDescription: `About ${slug}` });
  await t.db.serviceOffering.createMany({ data: [service('repairs', 2), service('eye-exam', 1), service('coming-soon', 0, 'draft')] });
});

describe('POST /api/v1/tools/site.list_pages', () => {
  it('lists published pages and published services with their public paths, anonymously', async () => {
    const res = await t.call('site.list_pages', {});
    expect(res.headers['ratelimit-policy']).toMatch(/"anon"/);
    const { pages, services } = okResult<{ pages: Record<string, unknown>[]; services: Record<string, unknown>[] }>(res);
    const about = await t.db.page.findUniqueOrThrow({ where: { slug: 'about' } });
    expect(pages).toEqual([
      { slug: 'about', title: 'About us', path: '/info/about', updatedAt: about.updatedAt.toISOString() },
      expect.objectContaining({ slug: 'shipping', path: '/info/shipping' }),
    ]);
    const exam = await t.db.serviceOffering.findUniqueOrThrow({ where: { slug: 'eye-exam' } });
    expect(services).toEqual([
      {
        slug: 'eye-exam', title: 'Service eye-exam', path: '/services/eye-exam', shortDescription: 'About eye-exam', priceString: null,
        heroImage: null, showInNav: false, navOrder: 1, updatedAt: exam.updatedAt.toISOString(),
      },
      expect.objectContaining({ slug: 'repairs', path: '/services/repairs', navOrder: 2 }),
    ]);
  });

  it('never lists drafts', async () => {
    const body = (await t.call('site.list_pages', {})).body;
    expect(body).not.toContain('secret-sale');
    expect(body).not.toContain('coming-soon');
  });

  it('orders services by navOrder', async () => {
    okResult(await t.call('services.update', { slug: 'eye-exam', patch: { navOrder: 10 } }, key));
    const { services } = okResult<{ services: { slug: string }[] }>(await t.call('site.list_pages', {}));
    expect(services.map((s) => s.slug)).toEqual(['repairs', 'eye-exam']);
  });

  it('shows a page and a service once they are published, and hides them again as drafts', async () => {
    okResult(await t.call('pages.upsert', { slug: 'secret-sale', title: 'Secret sale', body: 'Now public sale.', status: 'published' }, key));
    okResult(await t.call('services.update', { slug: 'coming-soon', patch: { status: 'published' } }, key));
    let site = okResult<{ pages: { slug: string }[]; services: { slug: string }[] }>(await t.call('site.list_pages', {}));
    expect(site.pages.map((p) => p.slug)).toContain('secret-sale');
    expect(site.services.map((s) => s.slug)).toEqual(['coming-soon', 'eye-exam', 'repairs']);

    okResult(await t.call('pages.upsert', { slug: 'about', title: 'About us', body: 'Hidden again now.', status: 'draft' }, key));
    site = okResult(await t.call('site.list_pages', {}));
    expect(site.pages.map((p) => p.slug)).toEqual(['secret-sale', 'shipping']);
  });

  it('answers the same with a key that lacks pages:read', async () => {
    const anonymous = okResult(await t.call('site.list_pages', {}));
    expect(okResult(await t.call('site.list_pages', {}, await t.key(['orders:read'])))).toEqual(anonymous);
  });

  it('refuses unknown fields', async () => {
    expectProblem(await t.call('site.list_pages', { includeDrafts: true }), 400, 'invalid_request');
  });
});

describe('POST /api/v1/tools/site.get_page', () => {
  it('returns a published page with title, body, layout and updatedAt, anonymously', async () => {
    const row = await t.db.page.findUniqueOrThrow({ where: { slug: 'about' } });
    expect(okResult(await t.call('site.get_page', { slug: 'about' }))).toEqual({
      kind: 'page', slug: 'about', path: '/info/about', title: 'About us', body: row.body, layout: row.layout,
      updatedAt: row.updatedAt.toISOString(), service: null,
    });
    expect(row.layout).toMatchObject({ sections: [{ id: 'top', key: 'hero', props: { title: 'Welcome' } }] });
  });

  it('returns layout null for a page without a layout', async () => {
    expect(okResult(await t.call('site.get_page', { slug: 'shipping', kind: 'page' }))).toMatchObject({ layout: null, path: '/info/shipping' });
  });

  it('returns a published service with kind "service"', async () => {
    const row = await t.db.serviceOffering.findUniqueOrThrow({ where: { slug: 'eye-exam' } });
    expect(okResult(await t.call('site.get_page', { slug: 'eye-exam', kind: 'service' }))).toEqual({
      kind: 'service', slug: 'eye-exam', path: '/services/eye-exam', title: 'Service eye-exam', body: 'Long copy of eye-exam.', layout: null,
      updatedAt: row.updatedAt.toISOString(),
      service: { shortDescription: 'About eye-exam', priceString: null, heroImage: null, features: [] },
    });
  });

  it('tells a page from a service with the same slug by kind', async () => {
    okResult(await t.call('pages.upsert', { slug: 'eye-exam', title: 'Eye exam info', body: 'Information page.' }, key));
    expect(okResult(await t.call('site.get_page', { slug: 'eye-exam' }))).toMatchObject({ kind: 'page', title: 'Eye exam info' });
    expect(okResult(await t.call('site.get_page', { slug: 'eye-exam', kind: 'service' }))).toMatchObject({ kind: 'service', title: 'Service eye-exam' });
  });

  it.each([
    ['a draft page', { slug: 'secret-sale' }],
    ['an unknown page', { slug: 'nope' }],
    ['a service asked for as a page', { slug: 'repairs' }],
    ['a draft service', { slug: 'coming-soon', kind: 'service' }],
    ['an unknown service', { slug: 'nope', kind: 'service' }],
    ['a page asked for as a service', { slug: 'about', kind: 'service' }],
  ])('answers 404 not_found for %s', async (_label, body) => {
    const res = await t.call('site.get_page', body);
    expectProblem(res, 404, 'not_found');
    expect(res.body).not.toContain('Secret sale');
  });

  it('answers drafts and unknown slugs alike, so drafts are not revealed', async () => {
    const draft = (await t.call('site.get_page', { slug: 'secret-sale' })).json();
    const unknown = (await t.call('site.get_page', { slug: 'secret-salf' })).json();
    expect(draft.detail.replace('secret-sale', 'X')).toBe(unknown.detail.replace('secret-salf', 'X'));
  });

  it.each<[string, Record<string, unknown>]>([
    ['a missing slug', {}],
    ['an empty slug', { slug: '' }],
    ['an unknown kind', { slug: 'about', kind: 'post' }],
    ['an unknown field', { slug: 'about', status: 'draft' }],
  ])('refuses %s (400)', async (_label, body) => {
    expectProblem(await t.call('site.get_page', body), 400, 'invalid_request');
  });
});
