import { ctaSection } from '../../domain/layout-sections/cta.ts';
import { defineSectionRenderer } from './define.ts';

export const ctaRenderer = defineSectionRenderer(ctaSection, {
  render: (p) =>
    p.title || p.text || (p.buttonLabel && p.buttonHref) ? (
      <section class="cta">
        {p.title ? <h2>{p.title}</h2> : null}
        {p.text ? <p>{p.text}</p> : null}
        {p.buttonLabel && p.buttonHref ? (
          <a class={p.variant === 'secondary' ? 'button button--secondary' : 'button'} href={p.buttonHref}>
            {p.buttonLabel}
          </a>
        ) : null}
      </section>
    ) : null,
});
