import { featuresSection } from '../../domain/layout-sections/features.ts';
import { defineSectionRenderer } from './define.ts';

// The icon name is kept in the layout for richer front ends; these pages load no icon set, so it is not shown.
export const featuresRenderer = defineSectionRenderer(featuresSection, {
  render: (p) =>
    p.items.length ? (
      <section>
        {p.title ? <h2>{p.title}</h2> : null}
        <ul class={`grid features cols-${p.columns}`}>
          {p.items.map((i) => (
            <li>
              <h3>{i.title}</h3>
              {i.text ? <p>{i.text}</p> : null}
            </li>
          ))}
        </ul>
      </section>
    ) : null,
});
