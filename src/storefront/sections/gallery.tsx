import { gallerySection } from '../../domain/layout-sections/gallery.ts';
import { isShownImage } from '../format.ts';
import { defineSectionRenderer } from './define.ts';

export const galleryRenderer = defineSectionRenderer(gallerySection, {
  render: (p) => {
    const images = p.images.filter((i) => isShownImage(i.src));
    if (images.length === 0) return null;
    return (
      <section>
        {p.title ? <h2>{p.title}</h2> : null}
        <ul class={`grid grid--tiles cols-${p.columns}`}>
          {images.map((i) => (
            <li>
              <img src={i.src} alt={i.alt} loading="lazy" />
            </li>
          ))}
        </ul>
      </section>
    );
  },
});
