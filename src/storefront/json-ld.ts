import { decimalPrice, isShownImage } from './format.ts';

// schema.org structured data for shopping agents and search engines. Each builder returns one JSON-LD object;
// the page embeds each in its own <script type="application/ld+json"> (a data block: browsers never run it).

export type JsonLd = { '@context': 'https://schema.org'; '@type': string } & Record<string, unknown>;

const ld = (type: string, fields: Record<string, unknown>): JsonLd => ({ '@context': 'https://schema.org', '@type': type, ...fields });

export const organization = (shopName: string, base: string) => ld('Organization', { name: shopName, url: `${base}/` });

/** The site with a SearchAction, so a search engine or agent can search the shop from outside. */
export const webSite = (shopName: string, base: string) =>
  ld('WebSite', {
    name: shopName,
    url: `${base}/`,
    potentialAction: {
      '@type': 'SearchAction',
      target: { '@type': 'EntryPoint', urlTemplate: `${base}/search?q={search_term_string}` },
      'query-input': 'required name=search_term_string',
    },
  });

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
}): JsonLd {
  const images = p.images.filter(isShownImage);
  return ld('Product', {
    name: p.name,
    description: p.description,
    sku: p.slug,
    url: p.url,
    ...(images.length ? { image: images } : {}),
    ...(p.brand ? { brand: { '@type': 'Brand', name: p.brand } } : {}),
    ...(p.categoryName ? { category: p.categoryName } : {}),
    offers: {
      '@type': 'Offer',
      url: p.url,
      price: decimalPrice(p.priceOere),
      priceCurrency: p.currency,
      availability: p.inStock ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock',
      itemCondition: 'https://schema.org/NewCondition',
    },
  });
}

export const faqPage = (items: readonly { q: string; a: string }[]) =>
  ld('FAQPage', {
    mainEntity: items.map((i) => ({ '@type': 'Question', name: i.q, acceptedAnswer: { '@type': 'Answer', text: i.a } })),
  });

export const service = (s: { title: string; description: string; url: string; image: string | null; shopName: string; base: string }) =>
  ld('Service', {
    name: s.title,
    description: s.description,
    url: s.url,
    ...(isShownImage(s.image) ? { image: s.image } : {}),
    provider: { '@type': 'Organization', name: s.shopName, url: `${s.base}/` },
  });

/** Trail from the front page to the current page; each step an absolute URL. */
export const breadcrumbList = (steps: readonly { name: string; url: string }[]) =>
  ld('BreadcrumbList', {
    itemListElement: steps.map((s, i) => ({ '@type': 'ListItem', position: i + 1, name: s.name, item: s.url })),
  });

/** JSON for inside a <script> element: "<" escaped so no text can close the element early. */
export const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
