import type { ProductPage, ProductPageData } from '../../services/storefront.ts';
import { breadcrumbLd, Breadcrumbs, FaqList, Stock, type Crumb } from '../components.tsx';
import { renderDocument } from '../document.tsx';
import { decimalPrice, isShownImage } from '../format.ts';
import { faqPage, productGroup, product as productLd } from '../json-ld.ts';
import { notFound, page, type PageOutcome } from '../outcome.ts';
import { categoryPath, productPath } from '../paths.ts';
import { Prose } from '../prose.tsx';
import { absolute, priceOf, type View } from '../view.ts';

/** The product page from its data (loadProductPage): a pure function, so its output can be memoized. */
export function productPage({ chrome, product: p }: ProductPage, base: string): PageOutcome {
  if (!p) return notFound(chrome);
  const view: View = { base, chrome };
  const path = productPath(p.slug);
  const trail: Crumb[] = [{ name: chrome.shop.shopName, path: '/' }, ...(p.category ? [{ name: p.category.name, path: categoryPath(p.category.slug) }] : []), { name: p.name, path }];
  const images = p.images.filter(isShownImage);
  const faq = p.faq ?? [];
  const html = renderDocument({
    view,
    title: p.name,
    description: p.answerSummary || p.description,
    path,
    ogType: 'product',
    image: images[0],
    head: (
      <>
        <meta property="product:price:amount" content={decimalPrice(p.priceOere)} />
        <meta property="product:price:currency" content={chrome.shop.currency} />
      </>
    ),
    jsonLd: [
      (p.options.length ? productGroup : productLd)({ ...p, currency: chrome.shop.currency, categoryName: p.category?.name ?? null, url: absolute(view, path) }),
      breadcrumbLd(view, trail),
      ...(faq.length ? [faqPage(faq)] : []),
    ],
    children: (
      <>
        <Breadcrumbs trail={trail} />
        <article class="product">
          <div>
            {images.length ? (
              <figure class="gallery-main">
                <img src={images[0]} alt={p.name} width={800} height={800} />
              </figure>
            ) : null}
            {images.length > 1 ? (
              <ul class="thumbs">
                {images.slice(1).map((src, i) => (
                  <li>
                    <img src={src} alt={`${p.name}, picture ${i + 2}`} loading="lazy" width={72} height={72} />
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
          <div>
            <h1>{p.name}</h1>
            {p.brand ? <p class="brand-name">{p.brand}</p> : null}
            <p class="price">{priceOf(view, p.priceOere)}</p>
            <Stock inStock={p.inStock} />
            <Variants product={p} view={view} />
            {p.answerSummary ? <p class="summary">{p.answerSummary}</p> : null}
            <Prose text={p.description} />
            <Facts product={p} />
          </div>
        </article>
        {p.useCases?.length ? (
          <section>
            <h2>Good for</h2>
            <ul>
              {p.useCases.map((u) => (
                <li>
                  <strong>{u.title}</strong>: {u.description}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {faq.length ? (
          <section>
            <h2>Questions and answers</h2>
            <FaqList items={faq} />
          </section>
        ) : null}
      </>
    ),
  });
  return page(html, chrome, p.updatedAt, p.category?.updatedAt, p.variantsUpdatedAt);
}

/** The variants of a product with options, each with its values, price and availability: readable without script. */
function Variants({ product: p, view }: { product: ProductPageData; view: View }) {
  if (p.options.length === 0) return null;
  return (
    <table class="variants">
      <caption>Variants</caption>
      <thead>
        <tr>
          {p.options.map((o) => (
            <th scope="col">{o.name}</th>
          ))}
          <th scope="col">Price</th>
          <th scope="col">Availability</th>
        </tr>
      </thead>
      <tbody>
        {p.variants.map((v) => (
          <tr id={`variant-${v.id}`}>
            {v.optionValues.map((value) => (
              <td>{value}</td>
            ))}
            <td>{priceOf(view, v.priceOere)}</td>
            <td>{v.available ? 'In stock' : 'Sold out'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Colours, attributes and comparison facts as one definition list. */
function Facts({ product: p }: { product: ProductPageData }) {
  const rows: [string, string][] = [];
  if (p.frameColor) rows.push(['Frame colour', p.frameColor]);
  if (p.lensColor) rows.push(['Lens colour', p.lensColor]);
  rows.push(...Object.entries(p.attributes ?? {}), ...Object.entries(p.comparisonFacts ?? {}));
  if (rows.length === 0) return null;
  return (
    <>
      <h2>Details</h2>
      <dl class="facts">
        {rows.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </>
        ))}
      </dl>
    </>
  );
}
