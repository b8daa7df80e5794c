import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { priceOrder, type PricingSettings } from '../../src/domain/pricing.ts';

const DK: PricingSettings = { shippingFeeDkk: 4900, freeShippingThresholdDkk: 50_000, vatRateBasisPoints: 2500 };
const line = (unitPriceDkk: number, quantity = 1) => ({ unitPriceDkk, quantity });

describe('priceOrder', () => {
  it('adds lines, shipping below the threshold, and the VAT included in the total', () => {
    expect(priceOrder([line(10_000, 2), line(5_000)], null, DK)).toEqual({
      subtotalDkk: 25_000, discountDkk: 0, shippingDkk: 4900, totalDkk: 29_900, vatOere: 5980,
    });
  });

  it('prices an empty order at zero, without shipping', () => {
    expect(priceOrder([], null, DK)).toEqual({ subtotalDkk: 0, discountDkk: 0, shippingDkk: 0, totalDkk: 0, vatOere: 0 });
  });

  describe('free shipping', () => {
    it('ships free exactly at the threshold, and not one øre below', () => {
      expect(priceOrder([line(50_000)], null, DK).shippingDkk).toBe(0);
      expect(priceOrder([line(49_999)], null, DK).shippingDkk).toBe(4900);
    });

    it('compares the goods after the discount with the threshold', () => {
      expect(priceOrder([line(55_000)], { type: 'fixed', value: 5_000 }, DK).shippingDkk).toBe(0);
      expect(priceOrder([line(55_000)], { type: 'fixed', value: 5_001 }, DK).shippingDkk).toBe(4900);
    });

    it('never ships free without a threshold; a threshold of 0 always ships free', () => {
      expect(priceOrder([line(10_000_000)], null, { ...DK, freeShippingThresholdDkk: null }).shippingDkk).toBe(4900);
      expect(priceOrder([line(1)], null, { ...DK, freeShippingThresholdDkk: 0 }).shippingDkk).toBe(0);
    });
  });

  describe('discounts', () => {
    it('takes a percentage of the subtotal', () => {
      expect(priceOrder([line(20_000)], { type: 'percent', value: 10 }, DK)).toMatchObject({ discountDkk: 2000, totalDkk: 22_900 });
    });

    it('rounds a percentage half-up to the øre', () => {
      // 10 % of 1005 øre = 100.5 → 101; 10 % of 1004 = 100.4 → 100; 15 % of 1010 = 151.5 → 152.
      expect(priceOrder([line(1005)], { type: 'percent', value: 10 }, DK).discountDkk).toBe(101);
      expect(priceOrder([line(1004)], { type: 'percent', value: 10 }, DK).discountDkk).toBe(100);
      expect(priceOrder([line(1010)], { type: 'percent', value: 15 }, DK).discountDkk).toBe(152);
      expect(priceOrder([line(1)], { type: 'percent', value: 50 }, DK).discountDkk).toBe(1);
      expect(priceOrder([line(1)], { type: 'percent', value: 49 }, DK).discountDkk).toBe(0);
    });

    it('makes the goods free at 100 % but still charges shipping', () => {
      expect(priceOrder([line(10_000)], { type: 'percent', value: 100 }, DK)).toEqual({
        subtotalDkk: 10_000, discountDkk: 10_000, shippingDkk: 4900, totalDkk: 4900, vatOere: 980,
      });
    });

    it('caps a fixed discount at the subtotal: the total never goes below shipping', () => {
      expect(priceOrder([line(3_000)], { type: 'fixed', value: 10_000 }, DK)).toMatchObject({ discountDkk: 3_000, totalDkk: 4900 });
      expect(priceOrder([line(3_000)], { type: 'fixed', value: 3_000 }, DK)).toMatchObject({ discountDkk: 3_000 });
      expect(priceOrder([line(3_000)], { type: 'fixed', value: 2_999 }, DK)).toMatchObject({ discountDkk: 2_999, totalDkk: 4901 });
    });

    it('gives nothing off an empty order', () => {
      expect(priceOrder([], { type: 'fixed', value: 500 }, DK).discountDkk).toBe(0);
    });
  });

  describe('VAT', () => {
    it('is the VAT share of a VAT-inclusive total: total × rate / (10000 + rate)', () => {
      // 25 %: 125.00 kr incl. VAT contains 25.00 kr VAT.
      expect(priceOrder([line(12_500)], null, { ...DK, freeShippingThresholdDkk: 0 }).vatOere).toBe(2500);
    });

    it('rounds half-up to the øre', () => {
      const free = { ...DK, freeShippingThresholdDkk: 0 };
      // 10 øre × 2500 / 12500 = 2.0; 11 → 2.2 → 2; 12 → 2.4 → 2; 13 → 2.6 → 3; 1 → 0.2 → 0.
      expect([10, 11, 12, 13, 1].map((p) => priceOrder([line(p)], null, free).vatOere)).toEqual([2, 2, 2, 3, 0]);
      // Exact halves: at 100 % (10000 bp) the VAT is total / 2, so 1 øre → 0.5 → 1 and 3 øre → 1.5 → 2.
      expect(priceOrder([line(1)], null, { ...free, vatRateBasisPoints: 10_000 }).vatOere).toBe(1);
      expect(priceOrder([line(3)], null, { ...free, vatRateBasisPoints: 10_000 }).vatOere).toBe(2);
    });

    it('is zero at a 0 % rate', () => {
      expect(priceOrder([line(12_345)], null, { ...DK, vatRateBasisPoints: 0 }).vatOere).toBe(0);
    });

    it('includes shipping in the taxed total', () => {
      expect(priceOrder([line(7_600)], null, DK)).toMatchObject({ totalDkk: 12_500, vatOere: 2500 });
    });
  });

  describe('large amounts', () => {
    it('is exact up to 2^53 − 1 øre, beyond floating-point precision of intermediate products', () => {
      const max = Number.MAX_SAFE_INTEGER;
      const r = priceOrder([line(max)], { type: 'percent', value: 33 }, { ...DK, freeShippingThresholdDkk: 0 });
      const expectedDiscount = (BigInt(max) * 33n * 2n + 100n) / 200n;
      expect(BigInt(r.discountDkk)).toBe(expectedDiscount);
      expect(BigInt(r.totalDkk)).toBe(BigInt(max) - expectedDiscount);
      expect(BigInt(r.vatOere)).toBe((2n * BigInt(r.totalDkk) * 2500n + 12_500n) / 25_000n);
    });

    it('refuses a subtotal or total beyond 2^53 − 1 øre with 422 value_out_of_range instead of rounding it', () => {
      const max = Number.MAX_SAFE_INTEGER;
      for (const lines of [[line(max, 2)], [line(max), line(1)]]) {
        try {
          priceOrder(lines, null, DK);
          throw new Error('accepted');
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).code).toBe('value_out_of_range');
        }
      }
      // Shipping on top of a maximal subtotal would overflow the total.
      expect(() => priceOrder([line(max)], null, { ...DK, freeShippingThresholdDkk: null })).toThrow(AppError);
    });
  });
});
