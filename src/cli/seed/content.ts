import type { Db } from '../../db/client.ts';
import { Layout } from '../../domain/layout-sections/layout.ts';
import { toJsonValue } from '../../db/json-value.ts';
import { HOME_PAGE_SLUG } from '../../services/storefront.ts';
import { bundledImagePath } from '../../assets/images.ts';
import { DEMO_CATEGORIES } from './catalog.ts';

/** The front page: a hero, the featured products (all in stock), the categories in the catalogue's order, a promise. */
const HOME_LAYOUT = Layout.parse({
  sections: [
    {
      id: 'hero',
      key: 'hero',
      props: {
        title: 'Sunglasses for the long Nordic summer',
        subtitle: 'Polarised lenses, hand-finished frames and free delivery in Denmark on orders over 499 kr.',
        imageUrl: bundledImagePath('hero-home.svg'),
        ctaLabel: 'Shop sunglasses',
        ctaHref: '/categories/sunglasses',
        align: 'left',
      },
    },
    { id: 'featured', key: 'product-grid', props: { title: 'Featured', featuredOnly: true, limit: 8, columns: 4 } },
    { id: 'categories', key: 'category-grid', props: { title: 'Shop by category', categorySlugs: DEMO_CATEGORIES.map((c) => c.slug), columns: 3 } },
    {
      id: 'promise',
      key: 'features',
      props: { title: 'Why buy from us', items: [
        { title: '30-day returns', text: 'Changed your mind? Send the glasses back within 30 days.' },
        { title: 'UV400 on every lens', text: 'Every pair blocks 100 % of UVA and UVB light.' },
        { title: 'Fitted by opticians', text: 'Any frame adjusted for free in our shops.' },
      ] },
    },
  ],
});

/** Parsed like pages.set_layout input, so the demo layout is stored in the same completed form the API stores. */
const ABOUT_LAYOUT = Layout.parse({
  sections: [
    {
      id: 'hero',
      key: 'hero',
      effect: 'fade-up',
      props: {
        title: 'Eyewear from the North Sea coast',
        subtitle: 'Designed in Esbjerg, fitted by opticians who know your face.',
        imageUrl: bundledImagePath('hero-about.svg'),
        ctaLabel: 'Book an eye exam',
        ctaHref: '/services/eye-exam',
      },
    },
    {
      id: 'story',
      key: 'rich-text',
      props: { body: '## Our story\n\nWe started in 2009 with one shop and a lathe.\n\nToday we ship across Denmark.' },
    },
    { id: 'favourites', key: 'product-grid', props: { title: 'Customer favourites', featuredOnly: true, limit: 4 } },
    {
      id: 'faq',
      key: 'faq',
      props: { items: [{ q: 'Do you fit prescription lenses?', a: 'Yes, in every shop and by mail.' }] },
    },
    { id: 'gap', key: 'spacer', enabled: false },
  ],
});

export const DEMO_PAGES = [
  {
    slug: HOME_PAGE_SLUG,
    title: 'Nordic eyewear, made to be worn',
    body: 'Sunglasses, readers and screen glasses designed in Esbjerg.',
    status: 'published',
    layout: HOME_LAYOUT,
  },
  {
    slug: 'about',
    title: 'About us',
    body: '## About us\n\nWe make sunglasses and spectacles in Denmark.\n\nEvery frame is checked by hand.',
    status: 'published',
    layout: ABOUT_LAYOUT,
  },
  {
    slug: 'shipping',
    title: 'Shipping and returns',
    body: '## Shipping\n\nFree delivery in Denmark over 499 kr.\n\n## Returns\n\n30 days, no questions asked.',
    status: 'published',
    layout: null,
  },
  {
    slug: 'terms',
    title: 'Terms of sale',
    body: '## Terms of sale\n\nPrices include 25 % VAT. Orders are shipped within two working days.\n\nYou may return goods within 30 days of delivery for a full refund; we pay the return postage in Denmark.\n\nComplaints are handled under the Danish Sale of Goods Act.',
    status: 'published',
    layout: null,
  },
  {
    slug: 'summer-sale',
    title: 'Summer sale (draft)',
    body: '## Summer sale\n\nThirty percent off all sunglasses, from June 1st.',
    status: 'draft',
    layout: null,
  },
] as const;

export const DEMO_SERVICES = [
  {
    slug: 'eye-exam',
    title: 'Eye exam',
    body: 'A 30-minute examination by an optometrist, including a prescription you can take anywhere.',
    shortDescription: 'Full eye examination with prescription.',
    priceString: 'from 395 kr.',
    heroImage: bundledImagePath('eye-exam.svg'),
    features: ['30 minutes', 'Prescription included', 'Book online'],
    showInNav: true,
    navOrder: 1n,
    status: 'published',
  },
  {
    slug: 'frame-fitting',
    title: 'Frame fitting',
    body: 'We adjust any frame, bought here or elsewhere, so it sits straight and stays put.',
    shortDescription: 'Free adjustment of any frame.',
    priceString: 'Free',
    heroImage: null,
    features: ['Any brand', 'While you wait'],
    showInNav: false,
    navOrder: 2n,
    status: 'published',
  },
  {
    slug: 'lens-subscription',
    title: 'Lens subscription',
    body: 'Contact lenses delivered every three months. Not launched yet.',
    shortDescription: 'Contact lenses by subscription.',
    priceString: '149 kr./month',
    heroImage: null,
    features: ['Free delivery', 'Cancel any time'],
    showInNav: false,
    navOrder: 3n,
    status: 'draft',
  },
] as const;

/** Demo pages (one with a layout, one draft) and services (one draft); re-running resets them in place. */
export async function seedContent(db: Db): Promise<{ pages: number; services: number }> {
  for (const { layout, ...page } of DEMO_PAGES) {
    const data = { ...page, layout: toJsonValue(layout) };
    await db.page.upsert({ where: { slug: page.slug }, update: data, create: data });
  }
  for (const service of DEMO_SERVICES) {
    const data = { ...service, features: [...service.features] };
    await db.serviceOffering.upsert({ where: { slug: service.slug }, update: data, create: data });
  }
  return { pages: DEMO_PAGES.length, services: DEMO_SERVICES.length };
}
