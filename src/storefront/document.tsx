import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import { pagePath, servicePath } from '../domain/public-paths.ts';
import { isShownImage } from './format.ts';
import { CART_PATH } from './paths.ts';
import { scriptJson, type JsonLd } from './json-ld.ts';
import { STYLESHEET_PATH } from './stylesheet.ts';
import { absolute, languageOf, textOf, type View } from './view.ts';

export type DocumentProps = {
  view: View;
  /** The page's own title; the shop name is appended in <title>. */
  title: string;
  description?: string | null;
  /** Site path of the canonical URL; null for pages that have none (404, search). */
  path: string | null;
  ogType?: 'website' | 'product' | 'article';
  image?: string | null;
  jsonLd?: readonly JsonLd[];
  /** Search results and error pages stay out of search engines. */
  noindex?: boolean;
  /** Extra <head> elements (pagination links, product price tags). */
  head?: ComponentChildren;
  children: ComponentChildren;
};

/** A whole HTML document: head with metadata and structured data, header with navigation, main, footer. */
export function renderDocument(props: DocumentProps): string {
  return `<!doctype html>${render(<Document {...props} />)}`;
}

function Document({ view, title, description, path, ogType = 'website', image, jsonLd = [], noindex, head, children }: DocumentProps): VNode {
  const { shop } = view.chrome;
  const fullTitle = title === shop.shopName ? title : `${title} – ${shop.shopName}`;
  const canonical = path === null ? null : absolute(view, path);
  const language = languageOf(view);
  return (
    <html lang={language}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{fullTitle}</title>
        {description ? <meta name="description" content={clip(description, 300)} /> : null}
        {noindex ? <meta name="robots" content="noindex" /> : null}
        {canonical ? <link rel="canonical" href={canonical} /> : null}
        <link rel="stylesheet" href={STYLESHEET_PATH} />
        <meta property="og:site_name" content={shop.shopName} />
        <meta property="og:title" content={title} />
        <meta property="og:type" content={ogType} />
        {canonical ? <meta property="og:url" content={canonical} /> : null}
        {description ? <meta property="og:description" content={clip(description, 300)} /> : null}
        {isShownImage(image) ? <meta property="og:image" content={image.startsWith('/') ? absolute(view, image) : image} /> : null}
        {/* Open Graph wants language_TERRITORY; a tag without a region has no such form. */}
        {/-[A-Z]{2}$/.test(language) ? <meta property="og:locale" content={language.replace('-', '_')} /> : null}
        {head}
        {jsonLd.map((data) => (
          <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: scriptJson(data) }} />
        ))}
      </head>
      <body>
        <a class="skip" href="#main">
          {textOf(view).skipToContent}
        </a>
        <Header view={view} />
        <main id="main" class="wrap">
          {children}
        </main>
        <Footer view={view} />
      </body>
    </html>
  );
}

function Header({ view }: { view: View }) {
  const { shop, services } = view.chrome;
  const m = textOf(view);
  return (
    <header class="site-header">
      <div class="wrap">
        <a class="brand" href="/">
          {shop.shopName}
        </a>
        <nav class="site-nav" aria-label={m.mainNav}>
          <ul>
            <li>
              <a href="/">{m.shop}</a>
            </li>
            {services.length ? (
              <li>
                <a href="/services">{m.services}</a>
              </li>
            ) : null}
            <li>
              <a href={CART_PATH}>{m.cart}</a>
            </li>
          </ul>
        </nav>
        <form class="search" role="search" action="/search" method="get">
          <label for="site-search">{m.search}</label>
          <input id="site-search" type="search" name="q" maxLength={200} />
          <button type="submit">{m.go}</button>
        </form>
      </div>
    </header>
  );
}

function Footer({ view }: { view: View }) {
  const { shop, services, pages } = view.chrome;
  const m = textOf(view);
  return (
    <footer class="site-footer">
      <div class="wrap">
        {pages.length ? (
          <nav aria-label={m.information}>
            <h2>{m.information}</h2>
            <LinkList links={pages.map((p) => ({ href: pagePath(p.slug), title: p.title }))} />
          </nav>
        ) : null}
        {services.length ? (
          <nav aria-label={m.services}>
            <h2>{m.services}</h2>
            <LinkList links={services.map((s) => ({ href: servicePath(s.slug), title: s.title }))} />
          </nav>
        ) : null}
        <div>
          <h2>{shop.shopName}</h2>
          <p>{m.pricesIncludeVat}</p>
          <p>
            {m.forAgents} <a href="/llms.txt">llms.txt</a> · <a href="/docs">{m.apiReference}</a>
          </p>
        </div>
      </div>
    </footer>
  );
}

const LinkList = ({ links }: { links: { href: string; title: string }[] }) => (
  <ul>
    {links.map((l) => (
      <li>
        <a href={l.href}>{l.title}</a>
      </li>
    ))}
  </ul>
);

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`);


