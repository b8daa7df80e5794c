import type { Chrome } from '../../services/storefront.ts';
import { renderDocument } from '../document.tsx';
import { textOf, type View } from '../view.ts';

/** The shop's 404 page: the same header and footer, a way back, and nothing revealing whether a draft exists. */
export function renderNotFound(chrome: Chrome, base: string): string {
  const view: View = { base, chrome };
  const m = textOf(view);
  return renderDocument({
    view,
    title: m.notFoundTitle,
    path: null,
    noindex: true,
    children: (
      <>
        <h1>{m.notFoundTitle}</h1>
        <p>{m.notFoundText}</p>
        <p>
          <a href="/">{m.backHome}</a>
          {m.orSearch}
        </p>
      </>
    ),
  });
}
