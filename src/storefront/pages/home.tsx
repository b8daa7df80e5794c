import type { Db } from '../../db/client.ts';
import { loadHome, searchProductCards } from '../../services/storefront.ts';
import { CategoryTiles, ProductGrid } from '../components.tsx';
import { renderDocument } from '../document.tsx';
import { newestOf } from '../format.ts';
import { organization, webSite } from '../json-ld.ts';
import { page, type PageOutcome } from '../outcome.ts';
import { ServiceList } from './services.tsx';
import { cmsContent } from './info.tsx';
import { textOf, type View } from '../view.ts';

const FEATURED_ON_HOME = 8;

/** The published page "home" when there is one; otherwise featured products, categories and services. */
export async function homePage(db: Db, base: string): Promise<PageOutcome> {
  const [{ chrome, page: home, categories, services }, featured] = await Promise.all([
    loadHome(db),
    searchProductCards(db, { featured: true, limit: FEATURED_ON_HOME }),
  ]);
  const view: View = { base, chrome };
  const { shopName } = chrome.shop;
  const siteLd = [organization(shopName, base), webSite(shopName, base)];
  if (home) {
    const content = await cmsContent(db, home, view);
    const html = renderDocument({
      view,
      title: home.title,
      description: content.description,
      path: '/',
      jsonLd: [...siteLd, ...content.jsonLd],
      children: (
        <>
          <h1>{home.title}</h1>
          {content.body}
        </>
      ),
    });
    return page(html, chrome, home.updatedAt, content.updatedAt);
  }
  const html = renderDocument({
    view,
    title: shopName,
    path: '/',
    jsonLd: siteLd,
    children: (
      <>
        <h1>{shopName}</h1>
        {featured.items.length ? (
          <section>
            <h2>{textOf(view).featuredProducts}</h2>
            <ProductGrid view={view} products={featured.items} />
          </section>
        ) : null}
        {categories.length ? (
          <section>
            <h2>{textOf(view).categories}</h2>
            <CategoryTiles categories={categories} />
          </section>
        ) : null}
        {services.length ? (
          <section>
            <h2>{textOf(view).services}</h2>
            <ServiceList services={services} />
          </section>
        ) : null}
      </>
    ),
  });
  return page(html, chrome, featured.updatedAt, newestOf(categories.map((c) => c.updatedAt)), newestOf(services.map((s) => s.updatedAt)));
}
