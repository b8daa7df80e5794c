import type { SessionAddress } from '../../domain/checkout-session.ts';
import type { SessionView } from '../../services/checkout-sessions.ts';
import type { Chrome } from '../../services/storefront.ts';
import { renderDocument } from '../document.tsx';
import { priceOf, textOf, type View } from '../view.ts';
import { Totals } from './cart.tsx';
import { TextField } from './checkout.tsx';

/** The delivery address as the lines of a label: name, street, postcode and city with the country; empty lines left out. */
const addressLines = (a: SessionAddress) =>
  [
    [a.firstName, a.lastName].filter(Boolean).join(' '),
    [a.streetAddress, a.extendedAddress].filter(Boolean).join(', '),
    [[a.postalCode, a.locality].filter(Boolean).join(' '), a.region, a.country].filter(Boolean).join(', '),
  ].filter((line) => line !== '');

export type ProtocolCheckoutPageInput = {
  chrome: Chrome; base: string; session: SessionView;
  /** Whether something keeps the buyer from paying it here (notReady): then the page says so, with no form. */
  blocked: boolean;
  /**
   * The e-mail the buyer typed, while the checkout has none (UCP lets the platform leave it out; the order's
   * confirmation and payment details go to it): the form asks for it. Undefined when the checkout has one.
   */
  email?: { value: string; invalid: boolean };
  /** Where the form posts: the page's own signed path. */
  action: string;
  /** The shop's payment provider: Stripe sends the buyer to its hosted page, manual gives instructions after placing. */
  provider: 'manual' | 'stripe';
  /** The signed link to the order page, once the session became an order. */
  orderPath: string | null;
  error?: string | null;
};

/**
 * A shopping assistant's checkout as its buyer finishes it (its continue_url): the lines, totals and delivery the
 * assistant gathered, and one button that pays with the shop's provider. A session that is not payable says why
 * instead (closed, completed, still missing something, or waiting for the bank's 3-D Secure).
 */
export function renderProtocolCheckoutPage({ chrome, base, session, blocked, email, action, provider, orderPath, error }: ProtocolCheckoutPageInput): string {
  const view: View = { base, chrome };
  const m = textOf(view);
  const address = session.fulfillment.address;
  const state =
    session.status === 'completed' ? 'completed'
    : session.status === 'canceled' ? 'closed'
    : session.pendingPayment ? 'bank'
    : blocked ? 'incomplete'
    : 'payable';
  const notice = { completed: m.sessionCompleted, closed: m.sessionClosed, bank: m.sessionBankCheck, incomplete: m.sessionIncomplete, payable: null }[state];
  return renderDocument({
    view,
    title: m.sessionTitle,
    path: null,
    noindex: true,
    children: (
      <>
        <h1>{m.sessionTitle}</h1>
        {error ? (
          <p class="notice notice--error" role="alert">
            {error}
          </p>
        ) : null}
        {notice ? (
          <p class={`notice ${state === 'completed' ? 'notice--ok' : 'notice--error'}`} role="status">
            {notice}
            {orderPath ? (
              <>
                {' '}
                <a href={orderPath}>{m.sessionViewOrder}</a>
              </>
            ) : null}
          </p>
        ) : (
          <p>{m.sessionIntro}</p>
        )}
        <section aria-labelledby="summary-heading">
          <h2 id="summary-heading">{m.orderSummary}</h2>
          <ul class="summary-lines">
            {session.lines.map((l) => (
              <li>
                <span>
                  {String(l.quantity)} × {l.title}
                </span>
                <span>{priceOf(view, l.lineTotal)}</span>
              </li>
            ))}
          </ul>
          <Totals
            view={view}
            amounts={{ subtotalDkk: session.totals.subtotal, discountDkk: session.totals.discount, shippingDkk: session.totals.fulfillment, totalDkk: session.totals.total, vatOere: session.totals.tax }}
            code={session.discounts.applied.map((a) => a.code).join(', ') || null}
          />
        </section>
        {address ? (
          <>
            <h2>{m.deliveryAddress}</h2>
            <address>
              {addressLines(address).map((line, i) => (
                <>
                  {i > 0 ? <br /> : null}
                  {line}
                </>
              ))}
            </address>
          </>
        ) : null}
        {session.buyer?.email ? (
          <p>
            {m.email}: {session.buyer.email}
          </p>
        ) : null}
        {state === 'payable' ? (
          <form method="post" action={action}>
            <input type="hidden" name="expectedTotal" value={String(session.totals.total)} />
            {email ? <h2>{m.contact}</h2> : null}
            {email ? (
              <TextField
                f={{ name: 'email', label: m.email, type: 'email', autoComplete: 'email', maxLength: 254, required: true }}
                value={email.value}
                error={email.invalid ? m.invalidField.email : null}
              />
            ) : null}
            <p>{provider === 'stripe' ? m.sessionPayStripe : m.sessionPayManual}</p>
            <p>
              <button type="submit">{provider === 'stripe' ? m.payNow : m.placeOrder}</button>
            </p>
          </form>
        ) : null}
      </>
    ),
  });
}
