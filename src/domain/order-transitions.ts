import { AppError } from '../errors.ts';

/** The 12 order statuses (docs/commerce.md), in the order a typical order moves through them. */
export const ORDER_STATUSES = [
  'pending_payment', 'pending', 'paid', 'flagged_review', 'processing', 'shipped', 'delivered', 'completed',
  'partial_refund', 'disputed', 'cancelled', 'refunded',
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The only place the legal moves are written down (docs/commerce.md shows them). Everything else derives from this table. */
const TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending_payment: ['pending', 'paid', 'flagged_review', 'cancelled'],
  pending: ['paid', 'processing', 'flagged_review', 'cancelled'],
  paid: ['processing', 'shipped', 'flagged_review', 'cancelled', 'refunded', 'partial_refund', 'disputed'],
  flagged_review: ['paid', 'processing', 'cancelled', 'refunded'],
  processing: ['shipped', 'cancelled', 'refunded', 'partial_refund', 'disputed'],
  shipped: ['delivered', 'refunded', 'partial_refund', 'disputed'],
  delivered: ['completed', 'refunded', 'partial_refund', 'disputed'],
  completed: ['refunded', 'partial_refund', 'disputed'],
  partial_refund: ['refunded', 'disputed', 'completed'],
  disputed: ['refunded', 'completed'],
  cancelled: [],
  refunded: [],
};

export type OrderTimestamp = 'paidAt' | 'refundedAt' | 'disputedAt' | 'shippedAt';

/** What entering a status does besides changing it. */
export type TransitionEffects = {
  /**
   * Stamped the first time the order enters the status; a later re-entry (paid → flagged_review → paid) keeps the
   * original time, because that is when the money moved. Every change is in the audit log anyway.
   */
  stamp: OrderTimestamp | null;
  /** Stock and the discount use go back to the shop, but only if the order never shipped (shippedAt unset). */
  releaseIfNotShipped: boolean;
};

const NO_EFFECTS: TransitionEffects = { stamp: null, releaseIfNotShipped: false };

const EFFECTS: Readonly<Partial<Record<OrderStatus, TransitionEffects>>> = {
  paid: { stamp: 'paidAt', releaseIfNotShipped: false },
  shipped: { stamp: 'shippedAt', releaseIfNotShipped: false },
  refunded: { stamp: 'refundedAt', releaseIfNotShipped: false },
  partial_refund: { stamp: 'refundedAt', releaseIfNotShipped: false },
  disputed: { stamp: 'disputedAt', releaseIfNotShipped: false },
  cancelled: { stamp: null, releaseIfNotShipped: true },
};

/**
 * Statuses whose orders count as revenue (analytics.summary, customers.*): the money was taken and not (fully)
 * given back. Each counts its total less the refunds recorded on it (refundedDkk: orders.refund, Stripe's
 * charge.refunded; docs/payments.md), so a partial_refund counts what the shop kept; disputed does not count until
 * the dispute is resolved (→ completed or refunded); flagged_review does not count while the payment is under review.
 */
export const REVENUE_STATUSES: readonly OrderStatus[] = ['paid', 'processing', 'shipped', 'delivered', 'completed', 'partial_refund'];

export function isOrderStatus(value: string): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value);
}

/** The statuses an order may move to from `from` (none for terminal or unknown statuses). */
export function legalTargets(from: string): readonly OrderStatus[] {
  return isOrderStatus(from) ? TRANSITIONS[from] : [];
}

export function effectsOf(to: OrderStatus): TransitionEffects {
  return EFFECTS[to] ?? NO_EFFECTS;
}

/** Throws 422 illegal_transition (naming the legal targets) unless `from → to` is in the table; staying put is illegal too. */
export function assertTransition(from: string, to: OrderStatus): TransitionEffects {
  const targets = legalTargets(from);
  if (!targets.includes(to)) {
    const legal = targets.length > 0 ? `legal targets: ${targets.join(', ')}` : `"${from}" is terminal: no further changes are possible`;
    throw new AppError('illegal_transition', `An order cannot move from "${from}" to "${to}"; ${legal}.`);
  }
  return effectsOf(to);
}

/** The table and its effects as plain text, published in orders.update_status's description. */
export function describeTransitions(): string {
  const rows = ORDER_STATUSES.map((from) => {
    const targets = TRANSITIONS[from];
    return `- ${from} → ${targets.length > 0 ? targets.join(', ') : 'none (terminal)'}`;
  });
  const stamps = ORDER_STATUSES.flatMap((s) => {
    const stamp = effectsOf(s).stamp;
    return stamp ? [`${s} sets ${stamp}`] : [];
  });
  const releases = ORDER_STATUSES.filter((s) => effectsOf(s).releaseIfNotShipped);
  return [
    'Legal moves:',
    ...rows,
    `On first entry, ${stamps.join(', ')}. Entering ${releases.join(', ')} before the order shipped returns its stock and its discount-code use.`,
  ].join('\n');
}
