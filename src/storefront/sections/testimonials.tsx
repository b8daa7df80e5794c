import { testimonialsSection } from '../../domain/layout-sections/testimonials.ts';
import { isShownImage } from '../format.ts';
import { defineSectionRenderer } from './define.ts';

export const testimonialsRenderer = defineSectionRenderer(testimonialsSection, {
  render: (p) =>
    p.items.length ? (
      <section>
        {p.title ? <h2>{p.title}</h2> : null}
        <ul class="quotes">
          {p.items.map((i) => (
            <li>
              <figure>
                {isShownImage(i.avatarUrl) ? <img src={i.avatarUrl} alt={i.author} loading="lazy" width={56} height={56} /> : null}
                <div>
                  <blockquote>
                    <p>{i.quote}</p>
                  </blockquote>
                  <figcaption>
                    {i.author}
                    {i.role ? `, ${i.role}` : ''}
                  </figcaption>
                </div>
              </figure>
            </li>
          ))}
        </ul>
      </section>
    ) : null,
});
