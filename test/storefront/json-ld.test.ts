// The structured data of every page type, checked against what consumers of each schema.org type require
// (schema.org marks nothing as required; these are the properties shopping and search consumers such as Google's
// merchant listings need) and against the value formats schema.org specifies: price as a decimal number with a
// dot and no currency symbol, ISO 4217 currency, enumeration members as schema.org URLs, absolute URLs,
// ListItem positions 1..n.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { BASE, get, html, jsonLdOf, seededStorefront } from './helpers.ts';

type Node = Record<string, unknown>;

/** Properties each claimed type must carry. */
const REQUIRED: Record<string, readonly string[]> = {
  Product: ['name', 'description', 'url', 'image', 'offers', 'sku'],
  ProductGroup: ['name', 'description', 'url', 'image', 'productGroupID', 'variesBy', 'hasVariant'],
  PropertyValue: ['name', 'value'],
  Offer: ['price', 'priceCurrency', 'availability', 'url'],
  Brand: ['name'],
  FAQPage: ['mainEntity'],
  Question: ['name', 'acceptedAnswer'],
  Answer: ['text'],
  Service: ['name', 'description', 'url', 'provider'],
  BreadcrumbList: ['itemListElement'],
  ListItem: ['position', 'name', 'item'],
  Organization: ['name', 'url'],
  WebSite: ['name', 'url', 'potentialAction'],
  SearchAction: ['target', 'query-input'],
  EntryPoint: ['urlTemplate'],
};
const URL_PROPS = new Set(['url', 'item', 'urlTemplate']);

/** Every node (object with @type) in a JSON-LD value, nested ones included. */
function nodes(value: unknown): Node[] {
  if (Array.isArray(value)) return value.flatMap(nodes);
  if (value === null || typeof value !== 'object') return [];
  const node = value as Node;
  return [...(typeof node['@type'] === 'string' ? [node] : []), ...Object.values(node).flatMap(nodes)];
}

function checkJsonLd(blocks: Node[]): void {
  for (const block of blocks) expect(block['@context']).toBe('https://schema.org');
  for (const node of nodes(blocks)) {
    const type = String(node['@type']);
    expect(Object.keys(REQUIRED), `unexpected type ${type}`).toContain(type);
    for (const prop of REQUIRED[type]) expect(node[prop], `${type}.${prop}`).toBeDefined();
    for (const [prop, v] of Object.entries(node)) {
      if (URL_PROPS.has(prop) && typeof v === 'string') expect(v.startsWith(`${BASE}/`), `${type}.${prop} = ${v}`).toBe(true);
    }
    if (type === 'Product' || type === 'ProductGroup') for (const image of node.image as string[]) expect(image).toMatch(/^https:\/\//);
    if (type === 'Offer') {
      expect(node.price).toMatch(/^\d+\.\d{2}$/);
      expect(node.priceCurrency).toMatch(/^[A-Z]{3}$/);
      expect(['https://schema.org/InStock', 'https://schema.org/OutOfStock']).toContain(node.availability);
      expect(node.itemCondition).toBe('https://schema.org/NewCondition');
    }
    if (type === 'BreadcrumbList') {
      const items = node.itemListElement as Node[];
      expect(items.map((i) => i.position)).toEqual(items.map((_, i) => i + 1));
    }
    if (type === 'SearchAction') {
      const template = String((node.target as Node).urlTemplate);
      const variable = /\{(\w+)\}/.exec(template)?.[1];
      expect(node['query-input']).toBe(`required name=${variable}`);
    }
  }
}

const typesOf = (blocks: Node[]) => blocks.map((b) => b['@type']);

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await seededStorefront());
});
afterAll(() => t?.close());

describe('JSON-LD', () => {
  it('product page of a product with options: a ProductGroup whose variants each have an Offer, and the variants listed', async () => {
    const slug = 'bog-rectangle-reader';
    okResult(await t.call('products.set_options', { slug, options: [{ name: 'Lens colour', values: ['Grey', 'Brown'] }, { name: 'Size', values: ['M'] }] }, key));
    const { variants } = okResult<{ variants: { id: string }[] }>(await t.call('products.get', { slug }));
    okResult(await t.call('variants.update', { variantId: variants[1].id, patch: { priceDkk: 123_450, sku: 'RND-BRN-M' } }, key));
    const page = html(await get(t, `/products/${slug}`));
    const blocks = jsonLdOf(page);
    checkJsonLd(blocks);
    const [group] = blocks;
    expect(group).toMatchObject({
      '@type': 'ProductGroup', productGroupID: slug, url: `${BASE}/products/${slug}`,
      variesBy: ['https://schema.org/color', 'https://schema.org/size'],
    });
    const offered = (group.hasVariant as Node[]).map((v) => [v.sku, (v.offers as Node).price, (v.offers as Node).availability, v.url]);
    expect(offered[1]).toEqual(['RND-BRN-M', '1234.50', 'https://schema.org/OutOfStock', `${BASE}/products/${slug}?variant=${variants[1].id}`]);
    expect(offered).toHaveLength(2);
    // Listed without script: option values, price and availability per variant; a variant's URL is the same page.
    expect(page).toContain('<caption>Variants</caption>');
    expect(page).toMatch(/<tr id="variant-[^"]+"><td>Brown<\/td><td>M<\/td><td>[^<]*1,234\.50[^<]*<\/td><td>Sold out<\/td><\/tr>/);
    expect((await get(t, `/products/${slug}?variant=${variants[1].id}`)).statusCode).toBe(200);
  });

  it('product page: Product with an Offer priced from øre, BreadcrumbList, FAQPage from the product FAQ', async () => {
    okResult(await t.call('products.create', {
      slug: 'huge-price', name: 'Gold-plated monocle', description: 'The most expensive item in the shop.', brand: 'Fjord',
      priceDkk: 9_007_199_254_740_991, stock: 0, categorySlug: 'accessories',
      images: ['https://images.example.com/a.jpg', 'https://images.example.com/b.jpg', 'http://images.example.com/insecure.jpg'],
      faq: [{ q: 'Is it real gold?', a: 'Plated, 24 carat.' }],
    }, key));
    const blocks = jsonLdOf(html(await get(t, '/products/huge-price')));
    checkJsonLd(blocks);
    expect(typesOf(blocks)).toEqual(['Product', 'BreadcrumbList', 'FAQPage']);
    const [product, crumbs, faq] = blocks;
    expect(product).toMatchObject({
      name: 'Gold-plated monocle',
      sku: 'huge-price',
      url: `${BASE}/products/huge-price`,
      image: ['https://images.example.com/a.jpg', 'https://images.example.com/b.jpg'],
      brand: { '@type': 'Brand', name: 'Fjord' },
      category: 'Accessories',
      offers: { '@type': 'Offer', price: '90071992547409.91', priceCurrency: 'DKK', availability: 'https://schema.org/OutOfStock' },
    });
    expect((crumbs.itemListElement as Node[]).map((i) => i.item)).toEqual([`${BASE}/`, `${BASE}/categories/accessories`, `${BASE}/products/huge-price`]);
    expect(faq.mainEntity).toEqual([{ '@type': 'Question', name: 'Is it real gold?', acceptedAnswer: { '@type': 'Answer', text: 'Plated, 24 carat.' } }]);

    const inStock = jsonLdOf(html(await get(t, '/products/fjord-shield')))[0];
    expect(inStock.offers).toMatchObject({ price: '1499.00', availability: 'https://schema.org/InStock' });
    const seeded = await t.db.product.findUniqueOrThrow({ where: { slug: 'fjord-shield' } });
    expect(seeded.priceDkk).toBe(149_900n);
  });

  it('front page: Organization and WebSite with a SearchAction to /search', async () => {
    const blocks = jsonLdOf(html(await get(t, '/')));
    checkJsonLd(blocks);
    expect(typesOf(blocks)).toEqual(['Organization', 'WebSite']);
    expect(blocks[1].potentialAction).toMatchObject({ target: { urlTemplate: `${BASE}/search?q={search_term_string}` } });
  });

  it('service page: Service with its provider; services and category pages: BreadcrumbList', async () => {
    const service = jsonLdOf(html(await get(t, '/services/eye-exam')));
    checkJsonLd(service);
    expect(typesOf(service)).toEqual(['Service', 'BreadcrumbList']);
    expect(service[0]).toMatchObject({ name: 'Eye exam', image: expect.stringMatching(new RegExp(`^${BASE}/assets/images/eye-exam\\.[0-9a-f]{12}\\.svg$`)), provider: { '@type': 'Organization', name: 'Agent Shop', url: `${BASE}/` } });
    for (const url of ['/services', '/categories/sunglasses']) {
      const blocks = jsonLdOf(html(await get(t, url)));
      checkJsonLd(blocks);
      expect(typesOf(blocks)).toEqual(['BreadcrumbList']);
    }
  });

  it('CMS page: FAQPage from its enabled faq sections', async () => {
    const blocks = jsonLdOf(html(await get(t, '/info/about')));
    checkJsonLd(blocks);
    expect(typesOf(blocks)).toEqual(['FAQPage']);
    expect((blocks[0].mainEntity as Node[])[0]).toMatchObject({ name: 'Do you fit prescription lenses?' });
  });

  it('keeps "<" from closing the script element', async () => {
    okResult(await t.call('products.update', { slug: 'fjord-shield', patch: { name: 'Evil </script><b>x' } }, key));
    const page = html(await get(t, '/products/fjord-shield'));
    expect(page).toContain('"name":"Evil \\u003c/script>\\u003cb>x"');
    expect(jsonLdOf(page)[0].name).toBe('Evil </script><b>x');
  });
});

describe('Open Graph and canonical URLs', () => {
  it('names the canonical URL from PUBLIC_BASE_URL and describes the page for link previews', async () => {
    const page = html(await get(t, '/products/havblik-aviator', { host: 'evil.example' }));
    expect(page).toContain(`<link rel="canonical" href="${BASE}/products/havblik-aviator"/>`);
    expect(page).toContain(`<meta property="og:url" content="${BASE}/products/havblik-aviator"/>`);
    expect(page).toContain('<meta property="og:type" content="product"/>');
    expect(page).toMatch(new RegExp(`<meta property="og:image" content="${BASE}/assets/images/havblik-aviator-1\\.[0-9a-f]{12}\\.svg"/>`));
    expect(page).toContain('<meta property="product:price:amount" content="1299.00"/>');
    expect(page).not.toContain('evil.example');
    expect(html(await get(t, '/info/about'))).toContain(`<link rel="canonical" href="${BASE}/info/about"/>`);
  });
});
