// Markup that runs script, fetches from elsewhere or breaks out of its context if a page inserts it unescaped or
// unsanitized. Every payload that would run calls xssFired(<id>) — the browser test exposes that function and
// fails on any call — and every fetch goes to evil.example, which the browser test watches for.
import { expect } from 'vitest';
import { toJsonValue } from '../../src/db/json-value.ts';
import type { TestApp } from '../helpers/app.ts';

export const XSS_PAYLOADS = [
  `<script>xssFired("script")</script>`,
  `"><img src=x onerror=xssFired("attr-dq")>`,
  `'><svg onload=xssFired("attr-sq")>`,
  `<a href="javascript:xssFired('href')" id="xss-link">click</a>`,
  `</title><script>xssFired("title")</script>`,
  `</script><script>xssFired("json-ld")</script>`,
  `<iframe srcdoc="<script>parent.xssFired('srcdoc')</script>"></iframe>`,
  `<style>@import url(https://evil.example/import.css);</style>`,
  `<div style="background:url(https://evil.example/style-attr)">styled</div>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=xssFired("mxss")>`,
  `<details open ontoggle=xssFired("toggle")>x</details>`,
  `<form action="javascript:xssFired('form')"><button>go</button></form>`,
  `<meta http-equiv="refresh" content="0;url=javascript:xssFired('meta')">`,
  `<object data="javascript:xssFired('object')"></object>`,
  `<img src="https://evil.example/pixel.gif" onload=xssFired("img-load")>`,
  `<a href="data:text/html,<script>xssFired('data-href')</script>">data</a>`,
  `<base href="https://evil.example/">`,
  `<link rel=stylesheet href=https://evil.example/x.css>`,
  `<noscript><p title="</noscript><img src=x onerror=xssFired('noscript')>">`,
  `<svg><animate onbegin=xssFired("svg-animate") attributeName=x dur=1s>`,
] as const;

/** All payloads in one string (for long text fields). */
export const XSS_ALL = XSS_PAYLOADS.join('\n\n');
/** The i-th payload, cycling: one per short field. */
export const xss = (i: number) => XSS_PAYLOADS[i % XSS_PAYLOADS.length];

/** Slugs of the content the corpus is planted in. */
export const XSS_SLUGS = { category: 'xss-category', product: 'xss-product', layoutPage: 'xss-layout', bodyPage: 'xss-body', vibePage: 'xss-vibe', service: 'xss-service' } as const;

const ok = async (t: TestApp, key: string, tool: string, body: unknown) => {
  const res = await t.call(tool, body, key);
  expect(res.statusCode, `${tool}: ${res.body}`).toBe(200);
};

/**
 * Plants the corpus in every text field of every content type: through the API where it validates the field, and
 * straight into the database for what the API never writes (vibeHtml) or refuses (script URLs in link and image
 * fields), so the pages' own escaping, URL checks and sanitizer are what is tested.
 */
export async function plantXss(t: TestApp, key: string): Promise<void> {
  let n = 0;
  const next = () => xss(n++);
  await ok(t, key, 'settings.update', { shopName: `Shop ${next()}` });
  await ok(t, key, 'categories.upsert', { slug: XSS_SLUGS.category, name: `Cat ${next()}`, description: XSS_ALL });
  await ok(t, key, 'products.create', {
    slug: XSS_SLUGS.product,
    name: `P ${next()}`.slice(0, 200),
    description: XSS_ALL,
    priceDkk: 12_345,
    stock: 3,
    brand: next(),
    frameColor: next().slice(0, 100),
    lensColor: next().slice(0, 100),
    attributes: { [next().slice(0, 200)]: next() },
    answerSummary: next(),
    faq: [{ q: next(), a: XSS_ALL }],
    useCases: [{ title: next(), description: XSS_ALL }],
    comparisonFacts: { [next().slice(0, 200)]: next() },
    categorySlug: XSS_SLUGS.category,
    featured: true,
    images: ['https://images.example.com/xss.jpg'],
  });
  await t.db.product.update({ where: { slug: XSS_SLUGS.product }, data: { images: ['https://images.example.com/xss.jpg', 'javascript:xssFired("image-url")', 'data:text/html,<script>xssFired(1)</script>'] } });

  await ok(t, key, 'pages.upsert', { slug: XSS_SLUGS.layoutPage, title: `L ${next()}`, body: XSS_ALL });
  await ok(t, key, 'pages.set_layout', { slug: XSS_SLUGS.layoutPage, confirm: true, layout: { sections: everySection(next) } });
  // A script URL where the API only takes site paths and https: the stored props then fail the section's schema.
  const stored = await t.db.page.findUniqueOrThrow({ where: { slug: XSS_SLUGS.layoutPage } });
  const layout = stored.layout as { sections: { id: string; key: string; enabled: boolean; props: Record<string, unknown> }[] };
  layout.sections.push({ id: 'bad-link', key: 'cta', enabled: true, props: { title: 'Bad link', text: '', buttonLabel: 'Go', buttonHref: "javascript:xssFired('cta-href')", variant: 'primary' } });
  await t.db.page.update({ where: { slug: XSS_SLUGS.layoutPage }, data: { layout: toJsonValue(layout) } });
  await ok(t, key, 'pages.upsert', { slug: XSS_SLUGS.bodyPage, title: `B ${next()}`, body: XSS_ALL });
  await ok(t, key, 'pages.upsert', { slug: XSS_SLUGS.vibePage, title: `V ${next()}`, body: 'replaced below with vibeHtml only' });
  await t.db.page.update({ where: { slug: XSS_SLUGS.vibePage }, data: { body: '', vibeHtml: `<h1>Vibe</h1><p>Kept <strong>text</strong>.</p>${XSS_ALL}` } });

  await ok(t, key, 'services.create', {
    slug: XSS_SLUGS.service,
    title: `S ${next()}`.slice(0, 200),
    body: XSS_ALL,
    shortDescription: next(),
    priceString: next().slice(0, 100),
    features: [next(), next()],
    heroImage: 'https://images.example.com/xss-service.jpg',
  });
}

/** One section of every key, each text prop holding a payload; link props hold a script URL (refused by the API). */
function everySection(next: () => string) {
  const img = 'https://images.example.com/section.jpg';
  return [
    { id: 'hero', key: 'hero', props: { title: next(), subtitle: next(), imageUrl: img, ctaLabel: next().slice(0, 80), ctaHref: '/info/about' } },
    { id: 'text', key: 'rich-text', props: { body: XSS_ALL } },
    { id: 'products', key: 'product-grid', props: { title: next(), productSlugs: [XSS_SLUGS.product] } },
    { id: 'categories', key: 'category-grid', props: { title: next(), categorySlugs: [XSS_SLUGS.category] } },
    { id: 'image', key: 'image', props: { src: img, alt: next(), caption: next(), href: '/' } },
    { id: 'gallery', key: 'gallery', props: { title: next(), images: [{ src: img, alt: next() }] } },
    { id: 'cta', key: 'cta', props: { title: next(), text: next(), buttonLabel: next().slice(0, 80), buttonHref: '/services' } },
    { id: 'faq', key: 'faq', props: { title: next(), items: [{ q: next(), a: XSS_ALL }] } },
    { id: 'quotes', key: 'testimonials', props: { title: next(), items: [{ quote: next(), author: next().slice(0, 120), role: next().slice(0, 120), avatarUrl: img }] } },
    { id: 'features', key: 'features', props: { title: next(), items: [{ title: next().slice(0, 120), text: next(), icon: next().slice(0, 40) }] } },
    { id: 'gap', key: 'spacer', props: { size: 'sm' } },
  ];
}
