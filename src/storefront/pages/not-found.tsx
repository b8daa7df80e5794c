import type { Chrome } from '../../services/storefront.ts';
import { renderDocument } from '../document.tsx';

/** The shop's 404 page: the same header and footer, a way back, and nothing revealing whether a draft exists. */
export function renderNotFound(chrome: Chrome, base: string): string {
  return renderDocument({
    view: { base, chrome },
    title: 'Page not found',
    path: null,
    noindex: true,
    children: (
      <>
        <h1>Page not found</h1>
        <p>There is nothing at this address. It may have been moved or taken down.</p>
        <p>
          <a href="/">Go to the front page</a> or search the shop with the field above.
        </p>
      </>
    ),
  });
}
