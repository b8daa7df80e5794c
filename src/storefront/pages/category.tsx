import { CATEGORY_PAGE_SIZE, type CategoryPage } from '../../services/storefront.ts';
import { breadcrumbLd, Breadcrumbs, ProductGrid, type Crumb } from '../components.tsx';
import { renderDocument } from '../document.tsx';
import { newestOf } from '../format.ts';
import { notFound, page, type PageOutcome } from '../outcome.ts';
import { categoryPath } from '../paths.ts';
import { Prose } from '../prose.tsx';
import { absolute, textOf, type View } from '../view.ts';

/** One page of a category's live products, newest first; a page number past the last one is a 404. */
export function categoryPage({ chrome, category, products }: CategoryPage, base: string, pageNumber: number): PageOutcome {
  const pages = Math.max(1, Math.ceil(Number(category?.liveProducts ?? 0) / CATEGORY_PAGE_SIZE));
  if (!category || pageNumber > pages) return notFound(chrome);
  const view: View = { base, chrome };
  const path = categoryPath(category.slug, pageNumber);
  const trail: Crumb[] = [{ name: chrome.shop.shopName, path: '/' }, { name: category.name, path: categoryPath(category.slug) }];
  const prev = pageNumber > 1 ? categoryPath(category.slug, pageNumber - 1) : null;
  const next = pageNumber < pages ? categoryPath(category.slug, pageNumber + 1) : null;
  const html = renderDocument({
    view,
    title: pageNumber > 1 ? textOf(view).pageTitle(category.name, pageNumber) : category.name,
    description: category.description,
    path,
    head: (
      <>
        {prev ? <link rel="prev" href={absolute(view, prev)} /> : null}
        {next ? <link rel="next" href={absolute(view, next)} /> : null}
      </>
    ),
    jsonLd: [breadcrumbLd(view, trail)],
    children: (
      <>
        <Breadcrumbs trail={trail} label={textOf(view).breadcrumb} />
        <h1>{category.name}</h1>
        {category.description ? <Prose text={category.description} /> : null}
        <ProductGrid view={view} products={products} />
        {pages > 1 ? (
          <nav class="pagination" aria-label={textOf(view).pages}>
            {prev ? <a href={prev} rel="prev">{textOf(view).newerProducts}</a> : null}
            <span>{textOf(view).pageOf(pageNumber, pages)}</span>
            {next ? <a href={next} rel="next">{textOf(view).olderProducts}</a> : null}
          </nav>
        ) : null}
      </>
    ),
  });
  return page(html, chrome, category.updatedAt, newestOf(products.map((p) => p.updatedAt)));
}
