import type { Chrome } from '../../services/storefront.ts';
import type { WebCartView } from '../../services/web-cart.ts';
import { renderDocument } from '../document.tsx';
import { CART_DISCOUNT_PATH, CART_LINES_PATH, CHECKOUT_PATH, productPath } from '../paths.ts';
import { priceOf, textOf, type View } from '../view.ts';

/** A cart's amounts in øre, as the priced cart and the order both carry them. */
export type Amounts = { subtotalDkk: number | bigint; discountDkk: number | bigint; shippingDkk: number | bigint; totalDkk: number | bigint; vatOere: number | bigint | null };

/** Subtotal, discount, shipping, total and the VAT in it: the same sums the cart, checkout and order show. */
export function Totals({ view, amounts, code }: { view: View; amounts: Amounts; code: string | null }) {
  const m = textOf(view);
  return (
    <dl class="totals">
      <dt>{m.subtotal}</dt>
      <dd>{priceOf(view, amounts.subtotalDkk)}</dd>
      {Number(amounts.discountDkk) > 0 ? (
        <>
          <dt>
            {m.discount}
            {code ? ` (${code})` : ''}
          </dt>
          <dd>−{priceOf(view, amounts.discountDkk)}</dd>
        </>
      ) : null}
      <dt>{m.shipping}</dt>
      <dd>{Number(amounts.shippingDkk) === 0 ? m.free : priceOf(view, amounts.shippingDkk)}</dd>
      <dt class="totals-total">{m.total}</dt>
      <dd class="totals-total">{priceOf(view, amounts.totalDkk)}</dd>
      {amounts.vatOere === null ? null : <dd class="totals-vat">{m.vatIncludedAmount(priceOf(view, amounts.vatOere))}</dd>}
    </dl>
  );
}

/** The hidden field every form of the storefront carries (src/storefront/shopper.ts). */
export const Csrf = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

/** Option values of a line, "Grey / M", or nothing. */
export const optionText = (options: Record<string, string> | unknown) =>
  options !== null && typeof options === 'object' ? Object.values(options).filter((v): v is string => typeof v === 'string').join(' / ') : '';

export type CartPageInput = { chrome: Chrome; base: string; cart: WebCartView | null; csrf: string; error?: string | null };

/** The cart: each line with its own quantity form (Update, Remove), the discount code form, the totals and the way to checkout. */
export function renderCartPage({ chrome, base, cart, csrf, error }: CartPageInput): string {
  const view: View = { base, chrome };
  const m = textOf(view);
  const lines = cart?.items ?? [];
  const problem = error ?? (cart?.discountProblem ? m.discountUnavailable(cart.discountProblem) : null);
  return renderDocument({
    view,
    title: m.cartTitle,
    path: null,
    noindex: true,
    children: (
      <>
        <h1>{m.cartTitle}</h1>
        {problem ? (
          <p class="notice notice--error" role="alert">
            {problem}
          </p>
        ) : null}
        {!cart || lines.length === 0 ? (
          <>
            <p>{m.cartEmpty}</p>
            <p>
              <a class="button" href="/">
                {m.continueShopping}
              </a>
            </p>
          </>
        ) : (
          <div class="cart">
            <ul class="cart-lines">
              {lines.map((l) => (
                <li class="cart-line">
                  <div class="cart-line-name">
                    <a href={productPath(l.productSlug)}>{l.productName}</a>
                    {optionText(l.options) ? <span class="cart-line-options">{optionText(l.options)}</span> : null}
                    <span class="cart-line-unit">
                      {m.unitPrice}: {priceOf(view, l.unitPriceDkk)}
                    </span>
                    {l.available ? null : <span class="stock stock--out">{m.notAvailable}</span>}
                  </div>
                  <form class="cart-line-form" method="post" action={CART_LINES_PATH}>
                    <Csrf token={csrf} />
                    <input type="hidden" name="variantId" value={l.variantId} />
                    <label for={`qty-${l.variantId}`}>{m.quantity}</label>
                    <input id={`qty-${l.variantId}`} class="qty" type="number" name="quantity" min={0} max={99} value={String(l.quantity)} inputMode="numeric" />
                    <button type="submit" class="button--secondary">
                      {m.update}
                    </button>
                    <button type="submit" name="remove" value="1" class="button--link">
                      {m.remove}
                      <span class="visually-hidden"> {l.productName}</span>
                    </button>
                  </form>
                  <p class="cart-line-total">{priceOf(view, l.lineTotalDkk)}</p>
                </li>
              ))}
            </ul>
            <div class="cart-summary">
              <form class="discount-form" method="post" action={CART_DISCOUNT_PATH}>
                <Csrf token={csrf} />
                {cart.discountCode ? (
                  <p>
                    {m.discountCode}: <strong>{cart.discountCode}</strong>{' '}
                    <button type="submit" name="remove" value="1" class="button--link">
                      {m.removeCode}
                    </button>
                  </p>
                ) : (
                  <>
                    <label for="discount-code">{m.discountCode}</label>
                    <input id="discount-code" name="code" maxLength={64} autoComplete="off" />
                    <button type="submit" class="button--secondary">
                      {m.apply}
                    </button>
                  </>
                )}
              </form>
              <Totals view={view} amounts={cart} code={cart.discountCode} />
              <p>
                <a class="button" href={CHECKOUT_PATH}>
                  {m.toCheckout}
                </a>
              </p>
            </div>
          </div>
        )}
      </>
    ),
  });
}

