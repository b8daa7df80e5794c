import type { BreadcrumbList, FAQPage, Offer, Organization, Product, ProductGroup, SearchAction, Service, Thing, WebSite, WithContext } from 'schema-dts';
import { decimalPrice, isShownImage } from './format.ts';

// schema.org structured data for shopping agents and search engines. Each builder returns one JSON-LD object;
// the page embeds each in its own <script type="application/ld+json"> (a data block: browsers never run it).

// The objects are typed with schema-dts (Google's TypeScript model of the schema.org vocabulary), so a property
// a type does not have, or a value of the wrong kind, is a compile error; test/storefront checks what the
// consumers of each type require at run time.

export type JsonLd = WithContext<Thing>;

const CONTEXT = 'https://schema.org' as const;

export const organization = (shopName: string, base: string): WithContext<Organization> => ({
  '@context': CONTEXT,
  '@type': 'Organization',
  name: shopName,
  url: `${base}/`,
});

/** The site with a SearchAction, so a search engine or agent can search the shop from outside. */
export function webSite(shopName: string, base: string): WithContext<WebSite> {
  // `query-input` names the URL template's variable (schema.org "Potential Actions"); schema-dts does not model
  // these "-input" annotations, hence the widened type.
  const search: SearchAction & { 'query-input': string } = {
    '@type': 'SearchAction',
    target: { '@type': 'EntryPoint', urlTemplate: `${base}/search?q={search_term_string}` },
    'query-input': 'required name=search_term_string',
  };
  return { '@context': CONTEXT, '@type': 'WebSite', name: shopName, url: `${base}/`, potentialAction: search };
}

export function product(p: {
  name: string;
  description: string;
  slug: string;
  brand: string | null;
  images: string[];
  priceOere: string;
  currency: string;
  inStock: boolean;
  categoryName: string | null;
  url: string;
}): WithContext<Product> {
  const images = absoluteImages(p.images, p.url);
  return {
    '@context': CONTEXT,
    '@type': 'Product',
    name: p.name,
    description: p.description,
    sku: p.slug,
    url: p.url,
    ...(images.length ? { image: images } : {}),
    ...(p.brand ? { brand: { '@type': 'Brand', name: p.brand } } : {}),
    ...(p.categoryName ? { category: p.categoryName } : {}),
    offers: offer(p.url, p.priceOere, p.currency, p.inStock),
  };
}

const offer = (url: string, priceOere: string, currency: string, inStock: boolean): Offer => ({
  '@type': 'Offer',
  url,
  price: decimalPrice(priceOere),
  priceCurrency: currency,
  availability: inStock ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock',
  itemCondition: 'https://schema.org/NewCondition',
});

/** schema.org's property for an option a shop names in words ("Lens colour" varies by color); else the name itself. */
const VARIES_BY: readonly [RegExp, string][] = [
  [/colou?r/i, 'https://schema.org/color'], [/size/i, 'https://schema.org/size'],
  [/material/i, 'https://schema.org/material'], [/pattern/i, 'https://schema.org/pattern'],
];
const variesBy = (option: string) => VARIES_BY.find(([re]) => re.test(option))?.[1] ?? option;

/**
 * A product with options: a ProductGroup whose variants are Products with their own Offer, SKU, price and
 * availability, each at its own URL (`?variant=<id>` on the product page, which lists them all).
 */
export function productGroup(p: Parameters<typeof product>[0] & {
  options: readonly { name: string; values: readonly string[] }[];
  variants: readonly { id: string; sku: string | null; optionValues: readonly string[]; priceOere: string; available: boolean }[];
}): WithContext<ProductGroup> {
  const { offers: _offers, sku: _sku, ...base } = product(p);
  const images = absoluteImages(p.images, p.url);
  return {
    ...base,
    '@type': 'ProductGroup',
    productGroupID: p.slug,
    variesBy: p.options.map((o) => variesBy(o.name)),
    hasVariant: p.variants.map((v) => {
      const url = `${p.url}?variant=${encodeURIComponent(v.id)}`;
      return {
        '@type': 'Product',
        name: `${p.name} (${v.optionValues.join(', ')})`,
        description: p.description,
        sku: v.sku ?? v.id,
        url,
        ...(images.length ? { image: images } : {}),
        additionalProperty: p.options.map((o, i) => ({ '@type': 'PropertyValue', name: o.name, value: v.optionValues[i] })),
        offers: offer(url, v.priceOere, p.currency, v.available),
      };
    }),
  };
}

export const faqPage = (items: readonly { q: string; a: string }[]): WithContext<FAQPage> => ({
  '@context': CONTEXT,
  '@type': 'FAQPage',
  mainEntity: items.map((i) => ({ '@type': 'Question', name: i.q, acceptedAnswer: { '@type': 'Answer', text: i.a } })),
});

export const service = (s: { title: string; description: string; url: string; image: string | null; shopName: string; base: string }): WithContext<Service> => ({
    '@context': CONTEXT,
    '@type': 'Service',
    name: s.title,
    description: s.description,
    url: s.url,
    ...(isShownImage(s.image) ? { image: absoluteImages([s.image], s.url)[0] } : {}),
    provider: { '@type': 'Organization', name: s.shopName, url: `${s.base}/` },
  });

/** Trail from the front page to the current page; each step an absolute URL. */
export const breadcrumbList = (steps: readonly { name: string; url: string }[]): WithContext<BreadcrumbList> => ({
    '@context': CONTEXT,
    '@type': 'BreadcrumbList',
    itemListElement: steps.map((s, i) => ({ '@type': 'ListItem', position: i + 1, name: s.name, item: s.url })),
  });

/** JSON for inside a <script> element: "<" escaped so no text can close the element early. */
export function scriptJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('<') ? json.replace(/</g, '\\u003c') : json;
}

/** The shown images as absolute URLs: a bundled image's site path resolved against the page's own URL. */
const absoluteImages = (images: readonly string[], pageUrl: string) => images.filter(isShownImage).map((i) => new URL(i, pageUrl).href);
