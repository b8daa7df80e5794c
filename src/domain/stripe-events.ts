import { legalTargets, type OrderStatus } from './order-transitions.ts';

/**
 * What a Stripe event says about an order's payment, read from the object it carries (the state of the session,
 * payment, charge, review or dispute at Stripe when the event was sent), not from the event's name alone: events
 * arrive late, twice and out of order, so the same facts must lead to the same order state whatever came before
 * (docs/payments.md, "Events to statuses").
 */
export type PaymentFacts =
  | { topic: 'payment'; state: 'succeeded' | 'failed' | 'processing' }
  | { topic: 'payment'; state: 'expired'; sessionId: string }
  | { topic: 'review'; open: boolean; approved: boolean }
  | { topic: 'refund'; amountRefunded: number; fullyRefunded: boolean }
  | { topic: 'dispute'; state: 'open' | 'won' | 'lost'; amount: number };

export type PaymentTopic = PaymentFacts['topic'];

/** The order as the decision reads it. */
export type PayableOrder = { status: OrderStatus; totalDkk: number; refundedDkk: number; stripeCheckoutSessionId: string | null };

export type PaymentDecision = {
  /** The transitions to make, in order (each through the state machine); empty when the status stays. */
  steps: OrderStatus[];
  /** The order's refundedDkk after the event, when it changes. */
  refundedDkk: number | null;
  /** The payment was taken: the payment intent and method are recorded on the order. */
  recordsPayment: boolean;
  /** Why, for the log and the stored event: applied, ignored (nothing to do) or illegal_transition. */
  outcome: 'applied' | 'ignored' | 'illegal_transition';
  detail: string;
};

const AWAITING: readonly OrderStatus[] = ['pending_payment', 'pending'];

const ignored = (detail: string): PaymentDecision => ({ steps: [], refundedDkk: null, recordsPayment: false, outcome: 'ignored', detail });

/**
 * The order's moves for these facts. A refund, review or dispute of an order still awaiting payment means the money
 * was taken first (its success event is late): the order becomes paid on the way. A path the state machine does
 * not allow is reported as illegal_transition and nothing moves.
 */
export function decidePayment(facts: PaymentFacts, order: PayableOrder): PaymentDecision {
  const awaiting = AWAITING.includes(order.status);
  const paidFirst: OrderStatus[] = awaiting ? ['paid'] : [];
  switch (facts.topic) {
    case 'payment':
      if (facts.state === 'succeeded') {
        // Paid for an order already cancelled (the session completed as it expired): illegal, so it is logged.
        return awaiting || order.status === 'cancelled' ? checked(order, ['paid'], null, true) : ignored(`already ${order.status}`);
      }
      if (facts.state === 'expired') {
        // Only the session the buyer was sent to ends the order; an older one replaced by orders.payment_link does not.
        const current = order.stripeCheckoutSessionId === null || order.stripeCheckoutSessionId === facts.sessionId;
        return order.status === 'pending_payment' && current ? checked(order, ['cancelled'], null, false) : ignored(`session expired, order ${order.status}`);
      }
      return ignored(`payment ${facts.state}; the order stays ${order.status}`);
    case 'review':
      if (facts.open) {
        if (order.status === 'flagged_review') return ignored('already under review');
        // pending_payment → flagged_review is a legal move of its own: the money is held, paidAt waits for approval.
        return checked(order, ['flagged_review'], null, awaiting);
      }
      return facts.approved && order.status === 'flagged_review' ? checked(order, ['paid'], null, false) : ignored(`review closed, order ${order.status}`);
    case 'refund': {
      const refunded = Math.min(order.totalDkk, Math.max(order.refundedDkk, facts.amountRefunded));
      const target: OrderStatus = facts.fullyRefunded || refunded >= order.totalDkk ? 'refunded' : 'partial_refund';
      // Already there (a further partial refund, or a late event): only a larger amount is recorded.
      if (order.status === 'refunded' || order.status === target) {
        return refunded === order.refundedDkk ? ignored(`already ${order.status}`) : { ...ignored('refunded amount recorded'), refundedDkk: refunded, outcome: 'applied' };
      }
      return checked(order, [...paidFirst, target], refunded, awaiting);
    }
    case 'dispute':
      if (facts.state === 'open') return order.status === 'disputed' ? ignored('already disputed') : checked(order, [...paidFirst, 'disputed'], null, awaiting);
      if (order.status !== 'disputed') {
        // A lost dispute of an order that never showed the dispute still takes the money back.
        return facts.state === 'lost' && order.status !== 'refunded' ? lost(order, facts.amount, paidFirst, awaiting) : ignored(`dispute ${facts.state}, order ${order.status}`);
      }
      // disputed → completed is the state machine's only way back that keeps the money (docs/payments.md).
      return facts.state === 'won' ? checked(order, ['completed'], null, false) : lost(order, facts.amount, [], false);
  }
}

function lost(order: PayableOrder, amount: number, before: OrderStatus[], recordsPayment: boolean): PaymentDecision {
  return checked(order, [...before, 'refunded'], Math.min(order.totalDkk, Math.max(order.refundedDkk, amount)), recordsPayment);
}

/** The steps when each is a legal move from the one before; otherwise nothing moves. */
function checked(order: PayableOrder, steps: OrderStatus[], refundedDkk: number | null, recordsPayment: boolean): PaymentDecision {
  let from = order.status;
  for (const to of steps) {
    if (!legalTargets(from).includes(to)) {
      return { steps: [], refundedDkk: null, recordsPayment: false, outcome: 'illegal_transition', detail: `${from} → ${to} is not a legal move` };
    }
    from = to;
  }
  return { steps, refundedDkk, recordsPayment, outcome: 'applied', detail: steps.join(' → ') };
}
