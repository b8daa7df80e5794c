import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { OrderStatus as OrderStatusColumn } from '../../src/generated/prisma/client.ts';
import {
  assertTransition, describeTransitions, effectsOf, legalTargets, ORDER_STATUSES, REVENUE_STATUSES, type OrderStatus,
} from '../../src/domain/order-transitions.ts';

/** The documented transition table (docs/commerce.md), copied by hand on purpose: the test fails if the code drifts from it. */
const DESIGN: Record<OrderStatus, OrderStatus[]> = {
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

const legal = Object.entries(DESIGN).flatMap(([from, tos]) => tos.map((to) => [from, to] as [OrderStatus, OrderStatus]));
const illegal = ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.filter((to) => !DESIGN[from].includes(to)).map((to) => [from, to] as [OrderStatus, OrderStatus]));

function illegalError(from: string, to: OrderStatus): AppError {
  try {
    assertTransition(from, to);
  } catch (err) {
    return err as AppError;
  }
  throw new Error(`${from} → ${to} was accepted`);
}

describe('order transition table', () => {
  it('names exactly the values of the Order.status column (a Prisma enum), in the same order', () => {
    expect(Object.values(OrderStatusColumn)).toEqual([...ORDER_STATUSES]);
  });

  it('has exactly the 12 documented order statuses', () => {
    expect([...ORDER_STATUSES].sort()).toEqual(Object.keys(DESIGN).sort());
  });

  it('matches the documented table for every status', () => {
    for (const from of ORDER_STATUSES) expect([...legalTargets(from)].sort(), from).toEqual([...DESIGN[from]].sort());
  });

  it.each(legal)('allows %s → %s', (from, to) => {
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it.each(ORDER_STATUSES.map((s) => [s]))('refuses %s → itself', (status) => {
    const err = illegalError(status, status);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('illegal_transition');
    expect(err.status).toBe(422);
  });

  it(`refuses all ${illegal.length} other moves, naming the legal targets`, () => {
    for (const [from, to] of illegal) {
      const err = illegalError(from, to);
      expect(err.code, `${from} → ${to}`).toBe('illegal_transition');
      for (const target of DESIGN[from]) expect(err.message).toContain(target);
    }
  });

  it('says a terminal status is terminal', () => {
    expect(illegalError('cancelled', 'paid').message).toMatch(/terminal/);
    expect(illegalError('refunded', 'completed').message).toMatch(/terminal/);
  });

  it('refuses moves from an unknown status', () => {
    expect(legalTargets('teleported')).toEqual([]);
    expect(illegalError('teleported', 'paid').code).toBe('illegal_transition');
  });
});

describe('transition effects', () => {
  it('stamps paidAt, shippedAt, refundedAt and disputedAt', () => {
    expect(effectsOf('paid').stamp).toBe('paidAt');
    expect(effectsOf('shipped').stamp).toBe('shippedAt');
    expect(effectsOf('refunded').stamp).toBe('refundedAt');
    expect(effectsOf('partial_refund').stamp).toBe('refundedAt');
    expect(effectsOf('disputed').stamp).toBe('disputedAt');
    for (const s of ['pending', 'processing', 'delivered', 'completed', 'flagged_review', 'cancelled'] as const) expect(effectsOf(s).stamp, s).toBeNull();
  });

  it('releases stock and discount use only on cancel', () => {
    expect(ORDER_STATUSES.filter((s) => effectsOf(s).releaseIfNotShipped)).toEqual(['cancelled']);
    expect(assertTransition('paid', 'cancelled')).toEqual({ stamp: null, releaseIfNotShipped: true });
  });

  it('counts only money-taken statuses as revenue', () => {
    expect([...REVENUE_STATUSES].sort()).toEqual(['completed', 'delivered', 'paid', 'partial_refund', 'processing', 'shipped']);
  });
});

describe('describeTransitions', () => {
  it('publishes one line per status with its targets, and the effects', () => {
    const text = describeTransitions();
    for (const from of ORDER_STATUSES) {
      expect(text).toContain(`- ${from} → ${DESIGN[from].length ? DESIGN[from].join(', ') : 'none (terminal)'}`);
    }
    expect(text).toMatch(/On first entry, paid sets paidAt/);
    expect(text).toMatch(/cancelled before the order shipped returns its stock and its discount-code use/);
  });
});
