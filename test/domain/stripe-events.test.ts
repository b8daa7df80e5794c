// What a Stripe event does to an order (src/domain/stripe-events.ts, docs/payments.md "Events to statuses"): the
// same facts lead to the same state whatever came before, and only legal moves are made.
import { describe, expect, it } from 'vitest';
import { decidePayment, type PayableOrder } from '../../src/domain/stripe-events.ts';

const order = (over: Partial<PayableOrder> = {}): PayableOrder => ({ status: 'pending_payment', totalDkk: 10_000, refundedDkk: 0, stripeCheckoutSessionId: 'cs_1', ...over });

describe('decidePayment', () => {
  it('a success pays an order awaiting payment, records the payment, and is ignored once paid', () => {
    expect(decidePayment({ topic: 'payment', state: 'succeeded' }, order())).toMatchObject({ steps: ['paid'], recordsPayment: true, outcome: 'applied' });
    expect(decidePayment({ topic: 'payment', state: 'succeeded' }, order({ status: 'pending' }))).toMatchObject({ steps: ['paid'] });
    expect(decidePayment({ topic: 'payment', state: 'succeeded' }, order({ status: 'shipped' }))).toMatchObject({ steps: [], outcome: 'ignored' });
    expect(decidePayment({ topic: 'payment', state: 'succeeded' }, order({ status: 'cancelled' }))).toMatchObject({ steps: [], outcome: 'illegal_transition' });
  });

  it('a failure or a payment still processing changes nothing', () => {
    for (const state of ['failed', 'processing'] as const) {
      expect(decidePayment({ topic: 'payment', state }, order())).toMatchObject({ steps: [], outcome: 'ignored' });
    }
  });

  it('expiry cancels only an order still awaiting payment, and only for its current session', () => {
    expect(decidePayment({ topic: 'payment', state: 'expired', sessionId: 'cs_1' }, order())).toMatchObject({ steps: ['cancelled'] });
    expect(decidePayment({ topic: 'payment', state: 'expired', sessionId: 'cs_old' }, order())).toMatchObject({ steps: [], outcome: 'ignored' });
    expect(decidePayment({ topic: 'payment', state: 'expired', sessionId: 'cs_1' }, order({ status: 'paid' }))).toMatchObject({ steps: [] });
  });

  it('refunds: partial then full; a late smaller amount never lowers the record; a refund before the payment pays first', () => {
    expect(decidePayment({ topic: 'refund', amountRefunded: 2500, fullyRefunded: false }, order({ status: 'paid' })))
      .toMatchObject({ steps: ['partial_refund'], refundedDkk: 2500 });
    expect(decidePayment({ topic: 'refund', amountRefunded: 4000, fullyRefunded: false }, order({ status: 'partial_refund', refundedDkk: 2500 })))
      .toMatchObject({ steps: [], refundedDkk: 4000, outcome: 'applied' });
    expect(decidePayment({ topic: 'refund', amountRefunded: 2500, fullyRefunded: false }, order({ status: 'partial_refund', refundedDkk: 4000 })))
      .toMatchObject({ steps: [], refundedDkk: null, outcome: 'ignored' });
    expect(decidePayment({ topic: 'refund', amountRefunded: 10_000, fullyRefunded: true }, order({ status: 'partial_refund', refundedDkk: 4000 })))
      .toMatchObject({ steps: ['refunded'], refundedDkk: 10_000 });
    expect(decidePayment({ topic: 'refund', amountRefunded: 1000, fullyRefunded: false }, order()))
      .toMatchObject({ steps: ['paid', 'partial_refund'], recordsPayment: true });
    // flagged_review may only go to refunded: a partial refund under review is illegal.
    expect(decidePayment({ topic: 'refund', amountRefunded: 1000, fullyRefunded: false }, order({ status: 'flagged_review' })))
      .toMatchObject({ steps: [], outcome: 'illegal_transition' });
  });

  it('disputes: open → disputed; won → completed; lost → refunded with the amount', () => {
    expect(decidePayment({ topic: 'dispute', state: 'open', amount: 10_000 }, order({ status: 'shipped' }))).toMatchObject({ steps: ['disputed'] });
    expect(decidePayment({ topic: 'dispute', state: 'open', amount: 10_000 }, order({ status: 'disputed' }))).toMatchObject({ steps: [], outcome: 'ignored' });
    expect(decidePayment({ topic: 'dispute', state: 'won', amount: 10_000 }, order({ status: 'disputed' }))).toMatchObject({ steps: ['completed'] });
    expect(decidePayment({ topic: 'dispute', state: 'won', amount: 10_000 }, order({ status: 'paid' }))).toMatchObject({ steps: [], outcome: 'ignored' });
    expect(decidePayment({ topic: 'dispute', state: 'lost', amount: 10_000 }, order({ status: 'disputed' }))).toMatchObject({ steps: ['refunded'], refundedDkk: 10_000 });
    expect(decidePayment({ topic: 'dispute', state: 'open', amount: 10_000 }, order())).toMatchObject({ steps: ['paid', 'disputed'], recordsPayment: true });
  });

  it('reviews: opened flags a paid order (or one awaiting payment); closed approved gives it back', () => {
    expect(decidePayment({ topic: 'review', open: true, approved: false }, order({ status: 'paid' }))).toMatchObject({ steps: ['flagged_review'] });
    expect(decidePayment({ topic: 'review', open: true, approved: false }, order())).toMatchObject({ steps: ['flagged_review'], recordsPayment: true });
    expect(decidePayment({ topic: 'review', open: false, approved: true }, order({ status: 'flagged_review' }))).toMatchObject({ steps: ['paid'] });
    expect(decidePayment({ topic: 'review', open: false, approved: false }, order({ status: 'flagged_review' }))).toMatchObject({ steps: [], outcome: 'ignored' });
    expect(decidePayment({ topic: 'review', open: true, approved: false }, order({ status: 'refunded' }))).toMatchObject({ outcome: 'illegal_transition' });
  });
});
