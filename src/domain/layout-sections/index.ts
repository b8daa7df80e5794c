import { categoryGridSection } from './category-grid.ts';
import { ctaSection } from './cta.ts';
import { faqSection } from './faq.ts';
import { featuresSection } from './features.ts';
import { gallerySection } from './gallery.ts';
import { heroSection } from './hero.ts';
import { imageSection } from './image.ts';
import { productGridSection } from './product-grid.ts';
import { richTextSection } from './rich-text.ts';
import { spacerSection } from './spacer.ts';
import { testimonialsSection } from './testimonials.ts';

export type { SectionDefinition } from './fields.ts';

/**
 * The section whitelist (docs/content.md). Adding a section = one module beside this file + one line here; layout.ts
 * builds the Layout schema from this list.
 */
export const SECTIONS = [
  heroSection,
  richTextSection,
  productGridSection,
  categoryGridSection,
  imageSection,
  gallerySection,
  ctaSection,
  faqSection,
  testimonialsSection,
  featuresSection,
  spacerSection,
] as const;

export const SECTION_KEYS = SECTIONS.map((s) => s.key);
