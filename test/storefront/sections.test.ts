// Layout sections on /info/<slug>: one renderer per whitelisted key, enabled sections in order, and the fallbacks
// body → vibeHtml when a page has no layout to show.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECTION_KEYS } from '../../src/domain/layout-sections/index.ts';
import { toJsonValue } from '../../src/db/json-value.ts';
import { SECTION_RENDERERS } from '../../src/storefront/sections/index.ts';
import type { TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { get, html, productLinks, seededStorefront } from './helpers.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await seededStorefront());
});
afterAll(() => t?.close());

const main = (page: string) => page.slice(page.indexOf('<main'), page.indexOf('</main>'));
const setLayout = async (slug: string, sections: unknown[] | null) =>
  okResult(await t.call('pages.set_layout', { slug, layout: sections && { sections }, confirm: true }, key));

describe('section renderers', () => {
  it('has a renderer for every section key, in a file named like the schema file', () => {
    expect(Object.keys(SECTION_RENDERERS).sort()).toEqual([...SECTION_KEYS].sort());
    for (const [k, r] of Object.entries(SECTION_RENDERERS)) expect(r.key).toBe(k);
    const schemaFiles = readdirSync(new URL('../../src/domain/layout-sections/', import.meta.url)).filter((f) => (SECTION_KEYS as readonly string[]).includes(f.replace(/\.ts$/, '')));
    const rendererFiles = readdirSync(new URL('../../src/storefront/sections/', import.meta.url)).filter((f) => f.endsWith('.tsx'));
    expect(rendererFiles.map((f) => f.replace(/\.tsx$/, '')).sort()).toEqual(schemaFiles.map((f) => f.replace(/\.ts$/, '')).sort());
  });

  it('renders every key, enabled sections only, in layout order, each under its section id', async () => {
    okResult(await t.call('pages.upsert', { slug: 'all-sections', title: 'All sections', body: 'Body text that the layout replaces.' }, key));
    const img = 'https://images.example.com/s.jpg';
    await setLayout('all-sections', [
      { id: 'hero', key: 'hero', props: { title: 'Hero title', subtitle: 'Sub', imageUrl: img, ctaLabel: 'Shop now', ctaHref: '/categories/sunglasses' } },
      { id: 'text', key: 'rich-text', props: { body: '## Story heading\n\nFirst paragraph.\nSecond line.' } },
      { id: 'picked', key: 'product-grid', props: { title: 'Picked', productSlugs: ['bog-rectangle-reader', 'havblik-aviator', 'no-such-product'] } },
      { id: 'newest-kids', key: 'product-grid', props: { title: 'Kids', categorySlug: 'kids', limit: 3 } },
      { id: 'cats', key: 'category-grid', props: { title: 'Browse', categorySlugs: ['sport', 'kids'] } },
      { id: 'image', key: 'image', props: { src: img, alt: 'A frame on a table', caption: 'Handmade', href: '/info/about' } },
      { id: 'gallery', key: 'gallery', props: { title: 'Gallery', images: [{ src: img, alt: 'First' }, { src: img, alt: 'Second' }] } },
      { id: 'cta', key: 'cta', props: { title: 'Book now', text: 'Slots this week.', buttonLabel: 'Book', buttonHref: '/services/eye-exam', variant: 'secondary' } },
      { id: 'faq', key: 'faq', props: { items: [{ q: 'Q one?', a: 'A one.' }] } },
      { id: 'quotes', key: 'testimonials', props: { items: [{ quote: 'Great fit.', author: 'Ane', role: 'Customer', avatarUrl: img }] } },
      { id: 'features', key: 'features', props: { items: [{ title: 'Free returns', text: '30 days.' }] } },
      { id: 'gap', key: 'spacer', props: { size: 'lg' } },
      { id: 'off', key: 'cta', enabled: false, props: { title: 'Disabled section' } },
    ]);
    const page = main(html(await get(t, '/info/all-sections')));
    const ids = [...page.matchAll(/<div id="section-([^"]+)" class="section section--([^"]+)">/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(ids).toEqual(['hero:hero', 'text:rich-text', 'picked:product-grid', 'newest-kids:product-grid', 'cats:category-grid', 'image:image', 'gallery:gallery', 'cta:cta', 'faq:faq', 'quotes:testimonials', 'features:features', 'gap:spacer']);
    expect(page).not.toContain('Disabled section');
    expect(page).not.toContain('Body text that the layout replaces.');
    expect(page).toContain('<h2>Story heading</h2><p>First paragraph.<br/>Second line.</p>');
    expect(page).toContain('<a class="button" href="/categories/sunglasses">Shop now</a>');
    expect(page).toContain('<a class="button button--secondary" href="/services/eye-exam">Book</a>');
    expect(page).toContain('<details><summary>Q one?</summary><p>A one.</p></details>');
    expect(page).toContain('alt="A frame on a table"');
    // Named products in the order named (unknown ones left out); a category's newest as products.search has them.
    const grids = [...page.matchAll(/<div id="section-(picked|newest-kids)"[\s\S]*?<\/ul>/g)].map((m) => productLinks(`<main>${m[0]}</main>`));
    expect(grids[0]).toEqual(['bog-rectangle-reader', 'havblik-aviator']);
    const kids = okResult<{ slug: string }[]>(await t.call('products.search', { categorySlug: 'kids', limit: 3 })).map((p) => p.slug);
    expect(grids[1]).toEqual(kids);
    expect(page.indexOf('href="/categories/sport"')).toBeLessThan(page.indexOf('href="/categories/kids"'));
  });

  it('renders a section stored with only its id and key from the schema defaults', async () => {
    okResult(await t.call('pages.upsert', { slug: 'defaults', title: 'Defaults', body: 'Fallback body text.' }, key));
    await setLayout('defaults', SECTION_KEYS.map((k) => ({ id: k, key: k })));
    const page = main(html(await get(t, '/info/defaults')));
    // Sections with nothing to show are left out; the newest products and every category with products are not.
    expect(page).toContain('id="section-product-grid"');
    expect(page).toContain('id="section-category-grid"');
    expect(page).toContain('id="section-spacer"');
    expect(page).not.toContain('id="section-hero"');
  });

  it('leaves out a stored section whose key or props no longer fit, instead of failing the page', async () => {
    okResult(await t.call('pages.upsert', { slug: 'legacy', title: 'Legacy', body: 'Legacy body text.' }, key));
    const layout = { sections: [
      { id: 'old', key: 'carousel', enabled: true, props: {} },
      { id: 'bad', key: 'cta', enabled: true, props: { buttonHref: 'javascript:alert(1)', buttonLabel: 'x' } },
      { id: 'good', key: 'rich-text', enabled: true, props: { body: 'Still here.' } },
    ] };
    await t.db.page.update({ where: { slug: 'legacy' }, data: { layout: toJsonValue(layout) } });
    const page = main(html(await get(t, '/info/legacy')));
    expect(page).toContain('Still here.');
    expect(page).not.toContain('section-old');
    expect(page).not.toContain('javascript:');
  });
});

describe('page content fallbacks', () => {
  it('renders the body when the layout is null or has no enabled section, else the sanitized vibeHtml', async () => {
    okResult(await t.call('pages.upsert', { slug: 'fallback', title: 'Fallback', body: '## Heading\n\nThe body paragraph.' }, key));
    expect(main(html(await get(t, '/info/fallback')))).toContain('<div class="prose"><h2>Heading</h2><p>The body paragraph.</p></div>');
    await setLayout('fallback', [{ id: 'x', key: 'cta', enabled: false }]);
    expect(main(html(await get(t, '/info/fallback')))).toContain('The body paragraph.');
    await t.db.page.update({ where: { slug: 'fallback' }, data: { body: '', vibeHtml: '<h1>Vibe</h1><p onclick="x()">Made with <b>vibe</b>.</p><script>x()</script>' } });
    expect(main(html(await get(t, '/info/fallback')))).toContain('<div class="prose"><h2>Vibe</h2><p>Made with <b>vibe</b>.</p></div>');
  });

  it('serves a published page "home" as the front page, with "/" as its canonical URL', async () => {
    okResult(await t.call('pages.upsert', { slug: 'home', title: 'Welcome to the shop', body: 'Our front page text.' }, key));
    await setLayout('home', [{ id: 'new', key: 'product-grid', props: { title: 'New in', limit: 4 } }]);
    const page = html(await get(t, '/'));
    expect(page).toContain('<h1>Welcome to the shop</h1>');
    expect(page).toContain('<h2>New in</h2>');
    expect(page).toContain('<link rel="canonical" href="https://shop.example.com/"/>');
    expect(html(await get(t, '/info/home'))).toContain('<link rel="canonical" href="https://shop.example.com/"/>');
    // The footer lists information pages, not the front page again.
    expect(page.slice(page.indexOf('<footer'))).not.toContain('/info/home');
    okResult(await t.call('pages.upsert', { slug: 'home', title: 'Welcome to the shop', body: 'Our front page text.', status: 'draft' }, key));
    expect(html(await get(t, '/'))).toContain('<h2>Featured products</h2>');
  });
});
