import { heroSection } from '../../domain/layout-sections/hero.ts';
import { isShownImage } from '../format.ts';
import { defineSectionRenderer } from './define.ts';

export const heroRenderer = defineSectionRenderer(heroSection, {
  render: (p) =>
    !p.title && !p.subtitle && !isShownImage(p.imageUrl) ? null : (
    <section class={`hero hero--${p.align}`}>
      {/* Decorative: the headline says what the picture shows. */}
      {isShownImage(p.imageUrl) ? <img src={p.imageUrl} alt="" width={1200} height={420} /> : null}
      <div class="hero-text">
        {p.title ? <h2>{p.title}</h2> : null}
        {p.subtitle ? <p>{p.subtitle}</p> : null}
        {p.ctaLabel && p.ctaHref ? (
          <a class="button" href={p.ctaHref}>
            {p.ctaLabel}
          </a>
        ) : null}
      </div>
    </section>
    ),
});
