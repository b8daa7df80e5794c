import type { SECTIONS } from '../../domain/layout-sections/index.ts';
import { categoryGridRenderer } from './category-grid.tsx';
import { ctaRenderer } from './cta.tsx';
import type { SectionRenderer } from './define.ts';
import { faqRenderer } from './faq.tsx';
import { featuresRenderer } from './features.tsx';
import { galleryRenderer } from './gallery.tsx';
import { heroRenderer } from './hero.tsx';
import { imageRenderer } from './image.tsx';
import { productGridRenderer } from './product-grid.tsx';
import { richTextRenderer } from './rich-text.tsx';
import { spacerRenderer } from './spacer.tsx';
import { testimonialsRenderer } from './testimonials.tsx';

type SectionKey = (typeof SECTIONS)[number]['key'];

/**
 * One renderer per whitelisted section key, each in the file named like the key's schema file. The mapped type
 * makes a key without a renderer a type error; test/storefront checks the same at run time.
 */
export const SECTION_RENDERERS: { readonly [K in SectionKey]: SectionRenderer } = {
  hero: heroRenderer,
  'rich-text': richTextRenderer,
  'product-grid': productGridRenderer,
  'category-grid': categoryGridRenderer,
  image: imageRenderer,
  gallery: galleryRenderer,
  cta: ctaRenderer,
  faq: faqRenderer,
  testimonials: testimonialsRenderer,
  features: featuresRenderer,
  spacer: spacerRenderer,
};

export const rendererFor = (key: string): SectionRenderer | undefined =>
  Object.hasOwn(SECTION_RENDERERS, key) ? SECTION_RENDERERS[key as SectionKey] : undefined;
