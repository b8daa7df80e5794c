import type { Chrome } from '../../services/storefront.ts';
import type { WebCartView } from '../../services/web-cart.ts';
import { renderDocument } from '../document.tsx';
import { CART_PATH, CHECKOUT_PATH } from '../paths.ts';
import { priceOf, textOf, type View } from '../view.ts';
import { Csrf, optionText, Totals } from './cart.tsx';

/** The checkout form's fields, as the shopper typed them (re-shown when the form comes back with a problem). */
export type CheckoutFields = { email: string; shippingName: string; shippingAddress: string; shippingZip: string; shippingCity: string; phoneNumber: string };
export type CheckoutField = keyof CheckoutFields | 'terms';
export const EMPTY_CHECKOUT: CheckoutFields = { email: '', shippingName: '', shippingAddress: '', shippingZip: '', shippingCity: '', phoneNumber: '' };

export type CheckoutPageInput = {
  chrome: Chrome; base: string; cart: WebCartView; csrf: string; fields: CheckoutFields;
  /** Fields the last submission got wrong. */
  invalid?: readonly CheckoutField[];
  /** A problem with the order as a whole (stock, prices changed). */
  error?: string | null;
  /** The shop's published terms of sale, when it has them. */
  termsPath: string | null;
};

type FieldSpec = { name: keyof CheckoutFields; label: string; type?: 'text' | 'email' | 'tel'; autoComplete: string; maxLength: number; required: boolean; inputMode?: 'numeric' };

/** One labelled input of a storefront form, with its error message when `error` is given (linked for screen readers). */
export function TextField({ f, value, error }: { f: FieldSpec; value: string; error: string | null }) {
  const attrs = {
    id: `f-${f.name}`, name: f.name, value, autoComplete: f.autoComplete, maxLength: f.maxLength, required: f.required,
    inputMode: f.inputMode, 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': error ? `e-${f.name}` : undefined,
  };
  return (
    <p class="field">
      <label for={`f-${f.name}`}>{f.label}</label>
      {f.type === 'email' ? <input type="email" {...attrs} /> : f.type === 'tel' ? <input type="tel" {...attrs} /> : <input type="text" {...attrs} />}
      {error ? (
        <span class="field-error" id={`e-${f.name}`}>
          {error}
        </span>
      ) : null}
    </p>
  );
}

/** Contact and delivery, the order summary, consent to the shop's terms and one button: the order is placed by a plain form post. */
export function renderCheckoutPage({ chrome, base, cart, csrf, fields, invalid = [], error, termsPath }: CheckoutPageInput): string {
  const view: View = { base, chrome };
  const m = textOf(view);
  const input = (f: FieldSpec) => <TextField f={f} value={fields[f.name]} error={invalid.includes(f.name) ? m.invalidField[f.name] : null} />;
  const termsBad = invalid.includes('terms');
  return renderDocument({
    view,
    title: m.checkoutTitle,
    path: null,
    noindex: true,
    children: (
      <>
        <h1>{m.checkoutTitle}</h1>
        {error || invalid.length ? (
          <p class="notice notice--error" role="alert">
            {error ?? m.fixFields}
          </p>
        ) : null}
        <div class="checkout">
          <form class="checkout-form" method="post" action={CHECKOUT_PATH}>
            <Csrf token={csrf} />
            <input type="hidden" name="expectedTotal" value={String(cart.totalDkk)} />
            <fieldset>
              <legend>{m.contact}</legend>
              {input({ name: 'email', label: m.email, type: 'email', autoComplete: 'email', maxLength: 254, required: true })}
              {input({ name: 'phoneNumber', label: m.phone, type: 'tel', autoComplete: 'tel', maxLength: 40, required: false })}
            </fieldset>
            <fieldset>
              <legend>{m.deliveryAddress}</legend>
              {input({ name: 'shippingName', label: m.fullName, autoComplete: 'name', maxLength: 200, required: true })}
              {input({ name: 'shippingAddress', label: m.address, autoComplete: 'street-address', maxLength: 500, required: true })}
              {input({ name: 'shippingZip', label: m.zip, autoComplete: 'postal-code', maxLength: 20, required: true, inputMode: 'numeric' })}
              {input({ name: 'shippingCity', label: m.city, autoComplete: 'address-level2', maxLength: 200, required: true })}
            </fieldset>
            <p class="field field--check">
              <input id="f-terms" type="checkbox" name="terms" value="accepted" required aria-invalid={termsBad ? 'true' : undefined} aria-describedby={termsBad ? 'e-terms' : undefined} />
              <label for="f-terms">{m.acceptTerms(chrome.shop.shopName)}</label>
              {termsPath ? (
                <>
                  {' '}
                  (<a href={termsPath}>{m.readTerms}</a>)
                </>
              ) : null}
              {termsBad ? (
                <span class="field-error" id="e-terms">
                  {m.invalidField.terms}
                </span>
              ) : null}
            </p>
            <p>
              <button type="submit">{m.placeOrder}</button>
            </p>
          </form>
          <section class="checkout-summary" aria-labelledby="summary-heading">
            <h2 id="summary-heading">{m.orderSummary}</h2>
            <ul class="summary-lines">
              {cart.items.map((l) => (
                <li>
                  <span>
                    {l.quantity} × {l.productName}
                    {optionText(l.options) ? ` (${optionText(l.options)})` : ''}
                  </span>
                  <span>{priceOf(view, l.lineTotalDkk)}</span>
                </li>
              ))}
            </ul>
            <Totals view={view} amounts={cart} code={cart.discountCode} />
            <p>
              <a href={CART_PATH}>{m.cartTitle}</a>
            </p>
          </section>
        </div>
      </>
    ),
  });
}
