import type { CategoryTile, ProductCard } from '../services/storefront.ts';
import { isShownImage } from './format.ts';
import { bundledImagePath } from '../assets/images.ts';
import { breadcrumbList } from './json-ld.ts';
import { categoryPath, productPath } from './paths.ts';
import { absolute, priceOf, textOf, type View } from './view.ts';

// Building blocks shared by the pages and the layout sections.

/** The picture of a product without pictures of its own (drawn, like the demo's, by scripts/draw-demo-images.ts). */
export const PLACEHOLDER_IMAGE = () => bundledImagePath('placeholder.svg');

export function ProductGrid({ view, products, columns = 4 }: { view: View; products: readonly ProductCard[]; columns?: number }) {
  if (products.length === 0) return <p class="empty">{textOf(view).noProducts}</p>;
  return (
    <ul class={`grid cols-${columns}`}>
      {products.map((p) => (
        <li>
          <article class="card">
            <a href={productPath(p.slug)}>
              {/* The name follows as the heading: the picture needs no alt text of its own. */}
              <img src={isShownImage(p.firstImage) ? p.firstImage : PLACEHOLDER_IMAGE()} alt="" loading="lazy" width={400} height={400} sizes="(min-width: 1024px) 25vw, (min-width: 760px) 33vw, 50vw" />
              <div class="card-body">
                <h3>{p.name}</h3>
                {p.brand ? <p class="brand-name">{p.brand}</p> : null}
                <p class="price">{priceOf(view, p.priceOere)}</p>
                <Stock inStock={p.inStock} view={view} />
              </div>
            </a>
          </article>
        </li>
      ))}
    </ul>
  );
}

export const Stock = ({ inStock, view }: { inStock: boolean; view: View }) =>
  inStock ? <p class="stock">{textOf(view).inStock}</p> : <p class="stock stock--out">{textOf(view).soldOut}</p>;

export function CategoryTiles({ categories, columns = 3 }: { categories: readonly CategoryTile[]; columns?: number }) {
  if (categories.length === 0) return null;
  return (
    <ul class={`grid grid--tiles cols-${columns}`}>
      {categories.map((c) => (
        <li>
          <a class="tile" href={categoryPath(c.slug)}>
            <h3>{c.name}</h3>
            {c.description ? <p>{c.description}</p> : null}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** Questions as native disclosure widgets: an accordion without script. */
export function FaqList({ items }: { items: readonly { q: string; a: string }[] }) {
  return (
    <div class="faq">
      {items.map((i) => (
        <details>
          <summary>{i.q}</summary>
          <p>{i.a}</p>
        </details>
      ))}
    </div>
  );
}

export type Crumb = { name: string; path: string };

/** The visible trail; the last step is the current page. */
export function Breadcrumbs({ trail, label }: { trail: readonly Crumb[]; label: string }) {
  return (
    <nav class="breadcrumbs" aria-label={label}>
      <ol>
        {trail.map((c, i) => (
          <li>{i === trail.length - 1 ? <span aria-current="page">{c.name}</span> : <a href={c.path}>{c.name}</a>}</li>
        ))}
      </ol>
    </nav>
  );
}

/** The same trail as schema.org BreadcrumbList, with absolute URLs. */
export const breadcrumbLd = (view: View, trail: readonly Crumb[]) => breadcrumbList(trail.map((c) => ({ name: c.name, url: absolute(view, c.path) })));
