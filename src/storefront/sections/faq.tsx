import { faqSection } from '../../domain/layout-sections/faq.ts';
import { FaqList } from '../components.tsx';
import { faqPage } from '../json-ld.ts';
import { textOf } from '../view.ts';
import { defineSectionRenderer } from './define.ts';

export const faqRenderer = defineSectionRenderer(faqSection, {
  render: (p, view) =>
    p.items.length ? (
      <section>
        <h2>{p.title || textOf(view).questions}</h2>
        <FaqList items={p.items} />
      </section>
    ) : null,
  jsonLd: (p) => (p.items.length ? faqPage(p.items) : null),
});
