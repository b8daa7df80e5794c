import type { Db } from '../../db/client.ts';
import { loadChrome, searchProductCards } from '../../services/storefront.ts';
import { ProductGrid } from '../components.tsx';
import { renderDocument } from '../document.tsx';
import { page, type PageOutcome } from '../outcome.ts';
import { textOf, type View } from '../view.ts';

/** Results shown per search: products.search's largest page. */
const SEARCH_LIMIT = 48;
/** products.search's q limit; a longer query is cut, not refused. */
export const MAX_QUERY_LENGTH = 200;

/** products.search with q, as a page: newest matches first. Not indexed by search engines. */
export async function searchPage(db: Db, base: string, rawQuery: string): Promise<PageOutcome> {
  const q = rawQuery.trim().slice(0, MAX_QUERY_LENGTH);
  const [chrome, found] = await Promise.all([loadChrome(db), q ? searchProductCards(db, { q, limit: SEARCH_LIMIT }) : null]);
  const view: View = { base, chrome };
  const m = textOf(view);
  const html = renderDocument({
    view,
    title: m.searchTitle(q),
    path: null,
    noindex: true,
    children: (
      <>
        <h1>{q ? m.searchResults(q) : m.searchHeading}</h1>
        {found ? (
          <>
            <p>{found.items.length === SEARCH_LIMIT ? m.newestMatches(SEARCH_LIMIT) : m.matchCount(found.items.length)}</p>
            <ProductGrid view={view} products={found.items} />
          </>
        ) : (
          <p>{m.searchHint}</p>
        )}
      </>
    ),
  });
  return page(html, chrome, found?.updatedAt);
}
