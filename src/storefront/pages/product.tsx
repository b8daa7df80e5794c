import type { ProductPage, ProductPageData } from '../../services/storefront.ts';
import { breadcrumbLd, Breadcrumbs, FaqList, Stock, type Crumb } from '../components.tsx';
import { renderDocument } from '../document.tsx';
import { decimalPrice, isShownImage } from '../format.ts';
import { faqPage, productGroup, product as productLd } from '../json-ld.ts';
import { notFound, page, type PageOutcome } from '../outcome.ts';
import { CART_ITEMS_PATH, categoryPath, productPath } from '../paths.ts';
import { Prose } from '../prose.tsx';
import { CSRF_SLOT } from '../shopper.ts';
import { PLACEHOLDER_IMAGE } from '../components.tsx';
import { absolute, priceOf, textOf, type View } from '../view.ts';
import { Csrf } from './cart.tsx';

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
        <Breadcrumbs trail={trail} label={textOf(view).breadcrumb} />
        <article class="product">
          <Gallery view={view} name={p.name} images={images} />
          <div>
            <h1>{p.name}</h1>
            {p.brand ? <p class="brand-name">{p.brand}</p> : null}
            <p class="price">{priceOf(view, p.priceOere)}</p>
            <Stock inStock={p.inStock} view={view} />
            <BuyForm product={p} view={view} />
            <Variants product={p} view={view} />
            {p.answerSummary ? <p class="summary">{p.answerSummary}</p> : null}
            <Prose text={p.description} />
            <Facts product={p} view={view} />
          </div>
        </article>
        {p.useCases?.length ? (
          <section>
            <h2>{textOf(view).goodFor}</h2>
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
            <h2>{textOf(view).questions}</h2>
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
  const m = textOf(view);
  return (
    <table class="variants">
      <caption>{m.variants}</caption>
      <thead>
        <tr>
          {p.options.map((o) => (
            <th scope="col">{o.name}</th>
          ))}
          <th scope="col">{m.price}</th>
          <th scope="col">{m.availability}</th>
        </tr>
      </thead>
      <tbody>
        {p.variants.map((v) => (
          <tr id={`variant-${v.id}`}>
            {v.optionValues.map((value) => (
              <td>{value}</td>
            ))}
            <td>{priceOf(view, v.priceOere)}</td>
            <td>{v.available ? m.inStock : m.soldOut}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The sizes the gallery's pictures are shown at: half the page beside the details from 900 px, else the full width. */
const GALLERY_SIZES = '(min-width: 900px) 50vw, 100vw';

/**
 * Every picture of the product, the first large and the others in a grid below it, each with its intrinsic size set
 * so nothing moves while they load; a product without pictures shows the placeholder picture.
 */
function Gallery({ view, name, images }: { view: View; name: string; images: readonly string[] }) {
  const m = textOf(view);
  if (images.length === 0) {
    return (
      <figure class="gallery-main gallery-main--empty">
        <img src={PLACEHOLDER_IMAGE()} alt="" width={800} height={800} />
        <figcaption>{m.noImage}</figcaption>
      </figure>
    );
  }
  return (
    <div class="gallery">
      <figure class="gallery-main">
        <img src={images[0]} srcset={`${images[0]} 800w`} sizes={GALLERY_SIZES} alt={name} width={800} height={800} />
      </figure>
      {images.length > 1 ? (
        <ul class="gallery-more">
          {images.slice(1).map((src, i) => (
            <li>
              <img src={src} srcset={`${src} 800w`} sizes="(min-width: 900px) 25vw, 50vw" alt={m.picture(name, i + 2)} loading="lazy" width={800} height={800} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * Add to cart, without script: the variant as a select (sold-out ones disabled) when the product has options, a
 * quantity and the form token (filled in per shopper, src/storefront/routes.ts). Nothing to buy: no form.
 */
function BuyForm({ product: p, view }: { product: ProductPageData; view: View }) {
  const m = textOf(view);
  const buyable = p.variants.filter((v) => v.available);
  if (buyable.length === 0) return null;
  return (
    <form class="buy" method="post" action={CART_ITEMS_PATH}>
      <Csrf token={CSRF_SLOT} />
      {p.options.length === 0 ? (
        <input type="hidden" name="variantId" value={buyable[0]!.id} />
      ) : (
        <p class="field">
          <label for="buy-variant">
            {m.chooseVariant} {p.options.map((o) => o.name.toLowerCase()).join(' / ')}
          </label>
          <select id="buy-variant" name="variantId">
            {p.variants.map((v) => (
              <option value={v.id} disabled={!v.available} selected={v.id === buyable[0]!.id}>
                {v.optionValues.join(' / ')} – {priceOf(view, v.priceOere)}
                {v.available ? '' : ` – ${m.soldOut}`}
              </option>
            ))}
          </select>
        </p>
      )}
      <p class="field field--inline">
        <label for="buy-quantity">{m.quantity}</label>
        <input id="buy-quantity" class="qty" type="number" name="quantity" min={1} max={99} value="1" inputMode="numeric" />
        <button type="submit">{m.addToCart}</button>
      </p>
    </form>
  );
}

/** Colours, attributes and comparison facts as one definition list. */
function Facts({ product: p, view }: { product: ProductPageData; view: View }) {
  const m = textOf(view);
  const rows: [string, string][] = [];
  if (p.frameColor) rows.push([m.frameColour, p.frameColor]);
  if (p.lensColor) rows.push([m.lensColour, p.lensColor]);
  rows.push(...Object.entries(p.attributes ?? {}), ...Object.entries(p.comparisonFacts ?? {}));
  if (rows.length === 0) return null;
  return (
    <>
      <h2>{m.details}</h2>
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
