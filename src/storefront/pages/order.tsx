import type { WebOrder } from '../../services/web-cart.ts';
import type { Chrome } from '../../services/storefront.ts';
import { renderDocument } from '../document.tsx';
import { dateOf, priceOf, textOf, type View } from '../view.ts';
import { optionText, Totals } from './cart.tsx';

const SHIPPED = new Set(['shipped', 'delivered', 'completed']);

/** The order as its buyer sees it by the signed link: status, lines, totals, how to pay while unpaid, tracking once shipped. */
export function renderOrderPage({ chrome, base, order, placed }: { chrome: Chrome; base: string; order: WebOrder; placed: boolean }): string {
  const view: View = { base, chrome };
  const m = textOf(view);
  return renderDocument({
    view,
    title: m.yourOrder,
    path: null,
    noindex: true,
    children: (
      <>
        <h1>{m.yourOrder}</h1>
        {placed ? (
          <p class="notice notice--ok" role="status">
            {m.orderPlaced}
          </p>
        ) : null}
        <dl class="order-facts">
          <dt>{m.orderNumber}</dt>
          <dd>{order.id}</dd>
          <dt>{m.orderDate}</dt>
          <dd>{dateOf(view, order.createdAt)}</dd>
          <dt>{m.status}</dt>
          <dd>
            <strong>{m.statuses[order.status]}</strong>
          </dd>
        </dl>
        {order.status === 'pending_payment' ? (
          <section aria-labelledby="payment-heading">
            <h2 id="payment-heading">{m.payment}</h2>
            <p>{m.manualPayment(priceOf(view, order.totalDkk), order.email)}</p>
          </section>
        ) : null}
        {SHIPPED.has(order.status) && order.trackingNumber ? (
          <section aria-labelledby="tracking-heading">
            <h2 id="tracking-heading">{m.shipment}</h2>
            <p>
              {m.trackingNumber(order.carrier ?? '', order.trackingNumber)}
              {order.shippedAt ? ` · ${dateOf(view, order.shippedAt)}` : ''}
            </p>
            {order.trackingUrl?.startsWith('https://') ? (
              <p>
                <a href={order.trackingUrl} rel="noreferrer">
                  {m.trackParcel}
                </a>
              </p>
            ) : null}
          </section>
        ) : null}
        <h2>{m.orderSummary}</h2>
        <ul class="summary-lines">
          {order.items.map((l) => (
            <li>
              <span>
                {String(l.quantity)} × {l.productName}
                {optionText(l.variantAttributes) ? ` (${optionText(l.variantAttributes)})` : ''}
              </span>
              <span>{priceOf(view, l.unitPriceDkk * l.quantity)}</span>
            </li>
          ))}
        </ul>
        <Totals view={view} amounts={order} code={order.discountCode} />
        <h2>{m.deliveryAddress}</h2>
        <address>
          {order.shippingName}
          <br />
          {order.shippingAddress}
          <br />
          {order.shippingZip} {order.shippingCity}
        </address>
        <p class="fine">{m.keepLink}</p>
      </>
    ),
  });
}
