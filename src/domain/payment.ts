/**
 * How an order placed at checkout gets paid (docs/payments.md). A provider says, inside the checkout's transaction
 * and without any I/O, what to store on the order and what to tell the buyer. With `manual` the order stays
 * `pending_payment` until an admin records the payment; with `stripe` the buyer pays in a Stripe Checkout Session
 * opened once the order is committed, and Stripe's events move the order on.
 */
export type PaymentRequest = { orderId: string; totalDkk: number; currency: string };

export type PaymentStart = {
  /** Stored as the order's paymentMethod; null while the buyer has not chosen one yet (Stripe: card, mobilepay …). */
  paymentMethod: string | null;
  /** The payment's id at the processor (stored as stripePaymentIntentId); null when there is none yet. */
  externalId: string | null;
  /** What the agent should tell the buyer. */
  instructions: string;
  /**
   * The payment was taken before the order is placed (an agent's token charged at Stripe): the order is placed and
   * paid in the same transaction, so no charged order is ever left awaiting its payment.
   */
  paid?: true;
};

export interface PaymentProvider {
  readonly name: 'manual' | 'stripe';
  start(request: PaymentRequest): PaymentStart;
}

/** Payment happens outside the service (invoice, bank transfer, card terminal); an admin records it. */
export const manualPaymentProvider: PaymentProvider = {
  name: 'manual',
  start({ orderId, totalDkk, currency }) {
    return {
      paymentMethod: 'manual',
      externalId: null,
      instructions: `Order ${orderId} awaits a manual payment of ${formatAmount(totalDkk)} ${currency}; the shop marks it paid once the money arrives.`,
    };
  },
};

/** The buyer pays at Stripe Checkout; the method (card, mobilepay …) is known once Stripe reports the payment. */
export const stripePaymentProvider: PaymentProvider = {
  name: 'stripe',
  start({ orderId, totalDkk, currency }) {
    return {
      paymentMethod: null,
      externalId: null,
      instructions: `Send the buyer to payment.url to pay ${formatAmount(totalDkk)} ${currency} for order ${orderId}; it becomes paid when Stripe confirms.`,
    };
  },
};

export const paymentProviderNamed = (name: PaymentProvider['name']): PaymentProvider => (name === 'stripe' ? stripePaymentProvider : manualPaymentProvider);

/** What the agent is told when the Checkout Session could not be opened after the order was placed. */
export const paymentLinkLater = (orderId: string) =>
  `Stripe could not be reached; order ${orderId} stays pending_payment. Get the payment link with orders.payment_link.`;

export function formatAmount(oere: number): string {
  return `${Math.trunc(oere / 100)}.${String(oere % 100).padStart(2, '0')}`;
}
