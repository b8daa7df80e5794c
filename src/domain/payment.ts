/**
 * How an order placed at checkout gets paid. Taking payment is out of scope for this service (docs/commerce.md): a provider
 * only says how the buyer pays and what reference to store; the order stays `pending_payment` until someone (an
 * admin, or later a provider's webhook) moves it on with orders.update_status.
 */
export type PaymentRequest = { orderId: string; totalDkk: number; currency: string };

export type PaymentStart = {
  /** Stored as the order's paymentMethod. */
  paymentMethod: string;
  /** The payment's id at the processor (stored as stripePaymentIntentId); null when there is none. */
  externalId: string | null;
  /** What the agent should tell the buyer. */
  instructions: string;
};

export interface PaymentProvider {
  readonly name: string;
  start(request: PaymentRequest): Promise<PaymentStart>;
}

/** Payment happens outside the service (invoice, bank transfer, card terminal); an admin records it. */
export const manualPaymentProvider: PaymentProvider = {
  name: 'manual',
  async start({ orderId, totalDkk, currency }) {
    return {
      paymentMethod: 'manual',
      externalId: null,
      instructions: `Order ${orderId} awaits a manual payment of ${formatAmount(totalDkk)} ${currency}; the shop marks it paid once the money arrives.`,
    };
  },
};

function formatAmount(oere: number): string {
  return `${Math.trunc(oere / 100)}.${String(oere % 100).padStart(2, '0')}`;
}
