import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECTIONS } from '../../src/domain/layout-sections/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { lastAudit, okResult, revert } from '../helpers/calls.ts';
import { expectProblem, NOT_CONFIRMED } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
let pageId: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key();
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'Page', 'AuditEntry');
  pageId = okResult<{ id: string }>(await t.call('pages.upsert', { slug: 'about', title: 'About us', body: 'Body of the about page.' }, key)).id;
});

type Section = Record<string, unknown>;
const setLayout = (layout: unknown, extra: Record<string, unknown> = { confirm: true }) =>
  t.call('pages.set_layout', { slug: 'about', layout, ...extra }, key);
const storedLayout = async () => (await t.db.page.findUniqueOrThrow({ where: { id: pageId } })).layout;

const HERO = {
  id: 'top',
  key: 'hero',
  effect: 'fade-up',
  props: { title: 'Welcome', imageUrl: 'https://images.example.com/hero.jpg', ctaLabel: 'Shop now', ctaHref: '/info/shop' },
};

describe('POST /api/v1/tools/pages.get_layout', () => {
  it('returns null for a page without a layout', async () => {
    expect(okResult(await t.call('pages.get_layout', { slug: 'about' }, key))).toEqual({ layout: null });
  });

  it('returns the stored layout, also of a draft page', async () => {
    await t.call('pages.upsert', { slug: 'about', title: 'About us', body: 'Body of the about page.', status: 'draft' }, key);
    okResult(await setLayout({ sections: [HERO] }));
    const { layout } = okResult<{ layout: { sections: Section[] } }>(await t.call('pages.get_layout', { slug: 'about' }, key));
    expect(layout).toEqual(await storedLayout());
    expect(layout.sections[0]).toMatchObject({ id: 'top', key: 'hero', enabled: true, effect: 'fade-up' });
  });

  it('answers 404 not_found for an unknown slug', async () => {
    expectProblem(await t.call('pages.get_layout', { slug: 'nope' }, key), 404, 'not_found');
  });
});

describe('POST /api/v1/tools/pages.set_layout', () => {
  it('stores the layout with defaults filled in and returns {slug, layout, updatedAt}', async () => {
    const before = await t.db.page.findUniqueOrThrow({ where: { id: pageId } });
    const result = okResult<{ slug: string; layout: { sections: Section[] }; updatedAt: string }>(
      await setLayout({ sections: [HERO, { id: 'gap', key: 'spacer', enabled: false }] }),
    );
    const row = await t.db.page.findUniqueOrThrow({ where: { id: pageId } });
    expect(result).toEqual({ slug: 'about', layout: row.layout, updatedAt: row.updatedAt.toISOString() });
    expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
    expect(row.layout).toEqual({
      sections: [
        {
          id: 'top', key: 'hero', enabled: true, effect: 'fade-up',
          props: { title: 'Welcome', subtitle: '', imageUrl: 'https://images.example.com/hero.jpg', ctaLabel: 'Shop now', ctaHref: '/info/shop', align: 'center' },
        },
        { id: 'gap', key: 'spacer', enabled: false, props: { size: 'md' } },
      ],
    });
    expect(row).toMatchObject({ title: 'About us', body: 'Body of the about page.', status: 'published' });
  });

  it.each(SECTIONS.map((s) => s.key))('accepts a "%s" section without props', async (sectionKey) => {
    const { layout } = okResult<{ layout: { sections: Section[] } }>(await setLayout({ sections: [{ id: 'only', key: sectionKey }] }));
    expect(layout.sections[0]).toMatchObject({ id: 'only', key: sectionKey, enabled: true });
    expect(layout.sections[0].props).toEqual(SECTIONS.find((s) => s.key === sectionKey)!.props.parse({}));
    expect(await storedLayout()).toEqual(layout);
  });

  it('accepts every section key in one layout, with props', async () => {
    const sections = [
      HERO,
      { id: 'text', key: 'rich-text', props: { body: '## Story\n\nParagraph.', width: 'narrow' } },
      { id: 'products', key: 'product-grid', props: { productSlugs: ['aviator-1'], limit: 4, columns: 2 } },
      { id: 'cats', key: 'category-grid', props: { categorySlugs: ['sunglasses', 'sport'] } },
      { id: 'img', key: 'image', effect: 'parallax', props: { src: 'https://cdn.example.com/a.png', alt: 'A shop', href: 'https://example.com/x' } },
      { id: 'gal', key: 'gallery', props: { images: [{ src: 'https://cdn.example.com/1.jpg', alt: 'One' }, { src: 'https://cdn.example.com/2.jpg' }] } },
      { id: 'cta', key: 'cta', props: { title: 'Visit us', buttonLabel: 'Find a shop', buttonHref: '/info/shops', variant: 'secondary' } },
      { id: 'faq', key: 'faq', props: { items: [{ q: 'Do you ship?', a: 'Yes, all over Denmark.' }] } },
      { id: 'quotes', key: 'testimonials', props: { items: [{ quote: 'Great frames', author: 'Ida', avatarUrl: 'https://cdn.example.com/ida.jpg' }] } },
      { id: 'usp', key: 'features', props: { items: [{ title: 'Free returns' }], columns: 4 } },
      { id: 'end', key: 'spacer', effect: 'none', props: { size: 'xl' } },
    ];
    const { layout } = okResult<{ layout: { sections: Section[] } }>(await setLayout({ sections }));
    expect(layout.sections.map((s) => s.key)).toEqual(SECTIONS.map((s) => s.key));
    expect(layout.sections[5].props).toMatchObject({ images: [{ src: 'https://cdn.example.com/1.jpg', alt: 'One' }, { src: 'https://cdn.example.com/2.jpg', alt: '' }] });
    expect(await storedLayout()).toEqual(layout);
  });

  it.each(['fade-up', 'fade', 'zoom-in', 'slide-left', 'slide-right', 'parallax', 'none'])('accepts effect "%s"', async (effect) => {
    okResult(await setLayout({ sections: [{ id: 'a', key: 'spacer', effect }] }));
    expect(await storedLayout()).toMatchObject({ sections: [{ effect }] });
  });

  it('removes the layout with layout: null', async () => {
    okResult(await setLayout({ sections: [HERO] }));
    expect(okResult(await setLayout(null))).toMatchObject({ slug: 'about', layout: null });
    expect(await storedLayout()).toBeNull();
  });

  const spacer = { id: 'gap', key: 'spacer' };
  it.each<[string, unknown, RegExp]>([
    ['an empty sections array', { sections: [] }, /^layout\.sections: .*>=1/],
    ['a layout without sections', {}, /^layout\.sections:/],
    ['an extra layout field', { sections: [spacer], theme: 'dark' }, /^layout: unknown field\(s\) "theme"/],
    ['a layout that is an array', [spacer], /^layout:/],
    ['a layout that is a string', 'hero', /^layout:/],
    ['sections that are not an array', { sections: spacer }, /^layout\.sections:/],
    ['a section that is not an object', { sections: ['hero'] }, /^layout\.sections\.0/],
    ['an unknown section key', { sections: [spacer, { id: 'x', key: 'carousel' }] }, /^layout\.sections\.1\.key: must be one of the section keys: hero, rich-text,/],
    ['a section key in another case', { sections: [{ id: 'x', key: 'Hero' }] }, /^layout\.sections\.0\.key: must be one of/],
    ['a section without key', { sections: [{ id: 'x' }] }, /^layout\.sections\.0\.key:/],
    ['a section without id', { sections: [{ key: 'spacer' }] }, /^layout\.sections\.0\.id:/],
    ['a section with an empty id', { sections: [{ id: '', key: 'spacer' }] }, /^layout\.sections\.0\.id:/],
    ['an extra section field', { sections: [{ ...spacer, style: 'x' }] }, /^layout\.sections\.0: unknown field\(s\) "style"/],
    ['a non-boolean enabled', { sections: [{ ...spacer, enabled: 'yes' }] }, /^layout\.sections\.0\.enabled:/],
    ['enabled null', { sections: [{ ...spacer, enabled: null }] }, /^layout\.sections\.0\.enabled:/],
    ['an unknown effect', { sections: [{ ...spacer, effect: 'spin' }] }, /^layout\.sections\.0\.effect:/],
    ['props that are not an object', { sections: [{ ...spacer, props: 'big' }] }, /^layout\.sections\.0\.props:/],
    ['props that are null', { sections: [{ ...spacer, props: null }] }, /^layout\.sections\.0\.props:/],
    ['an unknown prop', { sections: [spacer, { id: 'h', key: 'hero' }, { id: 'c', key: 'cta', props: { colour: 'red' } }] }, /^layout\.sections\.2\.props: unknown field\(s\) "colour"/],
    ['a prop of another section', { sections: [{ id: 'h', key: 'hero', props: { size: 'md' } }] }, /^layout\.sections\.0\.props: unknown field\(s\) "size"/],
    ['a prop of the wrong type', { sections: [spacer, { id: 'x', key: 'spacer' }, { id: 'h', key: 'hero', props: { title: 42 } }] }, /^layout\.sections\.2\.props\.title:/],
    ['a title over its limit', { sections: [spacer, { id: 'x', key: 'spacer' }, { id: 'h', key: 'hero', props: { title: 'x'.repeat(201) } }] }, /^layout\.sections\.2\.props\.title:/],
    ['a prop value outside its enum', { sections: [{ ...spacer, props: { size: 'huge' } }] }, /^layout\.sections\.0\.props\.size:/],
    ['a number prop out of range', { sections: [{ id: 'p', key: 'product-grid', props: { limit: 0 } }] }, /^layout\.sections\.0\.props\.limit:/],
    ['a fractional number prop', { sections: [{ id: 'p', key: 'product-grid', props: { columns: 2.5 } }] }, /^layout\.sections\.0\.props\.columns:/],
    ['a badly formed slug prop', { sections: [{ id: 'p', key: 'category-grid', props: { categorySlugs: ['Sun Glasses'] } }] }, /^layout\.sections\.0\.props\.categorySlugs\.0:/],
    ['a gallery image without src', { sections: [{ id: 'g', key: 'gallery', props: { images: [{ alt: 'x' }] } }] }, /^layout\.sections\.0\.props\.images\.0\.src:/],
    ['an extra field in a list item', { sections: [{ id: 'f', key: 'faq', props: { items: [{ q: 'Q?', a: 'A.', x: 1 }] } }] }, /^layout\.sections\.0\.props\.items\.0: unknown field\(s\) "x"/],
    ['an empty FAQ answer', { sections: [{ id: 'f', key: 'faq', props: { items: [{ q: 'Q?', a: '' }] } }] }, /^layout\.sections\.0\.props\.items\.0\.a:/],
    ['more than 100 sections', { sections: Array.from({ length: 101 }, (_, i) => ({ id: `s${i}`, key: 'spacer' })) }, /^layout\.sections: .*<=100/],
  ])('refuses %s (400, path in detail) and leaves the layout unchanged', async (_label, layout, detail) => {
    okResult(await setLayout({ sections: [HERO] }));
    const before = await storedLayout();
    await resetTables(t.db, 'AuditEntry');
    expect(expectProblem(await setLayout(layout), 400, 'invalid_request').detail).toMatch(detail);
    expect(await storedLayout()).toEqual(before);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it.each([
    ['duplicate section ids', { sections: [spacer, { ...spacer }] }, /^layout\.sections\.1\.id: duplicate section id "gap"/, 422, 'invalid_layout'],
    ['a NUL byte in a text prop', { sections: [{ id: 'r', key: 'rich-text', props: { body: 'a\u0000b' } }] }, /^layout\.sections\.0\.props\.body:/, 400, 'invalid_text'],
    ['an http image URL', { sections: [{ id: 'h', key: 'hero', props: { imageUrl: 'http://images.example.com/a.jpg' } }] }, /^layout\.sections\.0\.props\.imageUrl: image URL must use https/, 400, 'invalid_image_url'],
    ['an image URL on an IP address', { sections: [{ id: 'g', key: 'gallery', props: { images: [{ src: 'https://169.254.169.254/x.jpg' }] } }] }, /^layout\.sections\.0\.props\.images\.0\.src:/, 400, 'invalid_image_url'],
    ['an image URL with credentials', { sections: [{ id: 'i', key: 'image', props: { src: 'https://u:p@cdn.example.com/a.jpg' } }] }, /^layout\.sections\.0\.props\.src:/, 400, 'invalid_image_url'],
    ['an image URL that is not a URL', { sections: [{ id: 'i', key: 'image', props: { src: 'a.jpg' } }] }, /^layout\.sections\.0\.props\.src:/, 400, 'invalid_image_url'],
    ['a javascript: link', { sections: [{ id: 'h', key: 'hero', props: { ctaHref: 'javascript:alert(1)' } }] }, /^layout\.sections\.0\.props\.ctaHref:/, 422, 'invalid_layout'],
    ['a protocol-relative link', { sections: [{ id: 'c', key: 'cta', props: { buttonHref: '//evil.example.com' } }] }, /^layout\.sections\.0\.props\.buttonHref:/, 422, 'invalid_layout'],
  ] as const)('refuses %s (valid under the schema, against a layout rule) with its domain code, path in detail, layout unchanged', async (_label, layout, detail, status, code) => {
    okResult(await setLayout({ sections: [HERO] }));
    const before = await storedLayout();
    await resetTables(t.db, 'AuditEntry');
    expect(expectProblem(await setLayout(layout), status, code).detail).toMatch(detail);
    expect(await storedLayout()).toEqual(before);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('refuses a missing layout field', async () => {
    expect(expectProblem(await t.call('pages.set_layout', { slug: 'about', confirm: true }, key), 400, 'invalid_request').detail).toMatch(/^layout:/);
  });

  it.each(NOT_CONFIRMED)('refuses confirm %s with 422 confirmation_required and keeps the layout', async (_label, confirm) => {
    expectProblem(await setLayout({ sections: [HERO] }, confirm), 422, 'confirmation_required');
    expect(await storedLayout()).toBeNull();
    expect(await t.db.auditEntry.count()).toBe(1);
  });

  it('validates the layout before asking for confirmation', async () => {
    expectProblem(await setLayout({ sections: [] }, {}), 400, 'invalid_request');
  });

  it('dryRun returns the completed layout and the change, and persists nothing', async () => {
    await resetTables(t.db, 'AuditEntry');
    const res = await setLayout({ sections: [{ id: 'gap', key: 'spacer' }] }, { dryRun: true });
    const body = res.json();
    expect(body).toMatchObject({ ok: true, dryRun: true, result: { slug: 'about', layout: { sections: [{ id: 'gap', props: { size: 'md' } }] } } });
    expect(body.changes).toEqual([
      expect.objectContaining({ entityType: 'page', entityId: pageId, before: expect.objectContaining({ layout: null }), after: expect.objectContaining({ layout: expect.any(Object) }) }),
    ]);
    expect(await storedLayout()).toBeNull();
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('answers 404 not_found for an unknown slug', async () => {
    expectProblem(await t.call('pages.set_layout', { slug: 'nope', layout: { sections: [HERO] }, confirm: true }, key), 404, 'not_found');
  });

  it('writes an audit entry with the layout before and after', async () => {
    okResult(await setLayout({ sections: [HERO] }));
    const entry = await lastAudit(t, 'pages.set_layout', pageId);
    expect(entry).toMatchObject({ entityType: 'page', before: expect.objectContaining({ layout: null }) });
    expect((entry.after as { layout: unknown }).layout).toEqual(await storedLayout());
  });
});

describe('POST /api/v1/tools/audit.revert on pages.set_layout entries', () => {
  it('restores the previous layout', async () => {
    okResult(await setLayout({ sections: [HERO] }));
    const first = await storedLayout();
    okResult(await setLayout({ sections: [{ id: 'gap', key: 'spacer' }] }));
    const entry = await lastAudit(t, 'pages.set_layout', pageId);
    okResult(await revert(t, key, entry.id));
    expect(await storedLayout()).toEqual(first);
  });

  it('restores a null layout', async () => {
    okResult(await setLayout({ sections: [HERO] }));
    okResult(await revert(t, key, (await lastAudit(t, 'pages.set_layout', pageId)).id));
    expect(await storedLayout()).toBeNull();
    expect(okResult(await t.call('pages.get_layout', { slug: 'about' }, key))).toEqual({ layout: null });
  });

  it('refuses to revert twice, and reverts a layout changed since only with force', async () => {
    okResult(await setLayout({ sections: [HERO] }));
    const entry = await lastAudit(t, 'pages.set_layout', pageId);
    okResult(await revert(t, key, entry.id));
    expectProblem(await revert(t, key, entry.id), 422, 'revert_conflict');
    expect(await storedLayout()).toBeNull();

    okResult(await setLayout({ sections: [HERO] }));
    const again = await lastAudit(t, 'pages.set_layout', pageId);
    okResult(await setLayout({ sections: [{ id: 'gap', key: 'spacer' }] }));
    expectProblem(await revert(t, key, again.id), 422, 'revert_conflict');
    expect(await storedLayout()).toMatchObject({ sections: [{ key: 'spacer' }] });
    okResult(await revert(t, key, again.id, true));
    expect(await storedLayout()).toBeNull();
  });
});
