import { imageSection } from '../../domain/layout-sections/image.ts';
import { isShownImage } from '../format.ts';
import { defineSectionRenderer } from './define.ts';

export const imageRenderer = defineSectionRenderer(imageSection, {
  render: (p) => {
    if (!isShownImage(p.src)) return null;
    // Without alt text the caption describes the picture; with neither it is treated as decorative.
    const img = <img src={p.src} alt={p.alt || p.caption} loading="lazy" />;
    return (
      <figure class={`figure--${p.width}`}>
        {p.href ? <a href={p.href}>{img}</a> : img}
        {p.caption ? <figcaption>{p.caption}</figcaption> : null}
      </figure>
    );
  },
});
