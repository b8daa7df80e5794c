import { AppError } from '../errors.ts';

export type PriceLine = { unitPriceDkk: number; quantity: number };

export type DiscountTerms = { type: 'percent'; value: number } | { type: 'fixed'; value: number };

export type PricingSettings = {
  shippingFeeDkk: number;
  /** Goods worth at least this much (after the discount) ship free; null = shipping is never free. */
  freeShippingThresholdDkk: number | null;
  /** 2500 = 25 %. */
  vatRateBasisPoints: number;
};

export type PriceBreakdown = {
  subtotalDkk: number;
  discountDkk: number;
  shippingDkk: number;
  totalDkk: number;
  /** The VAT contained in totalDkk (prices are VAT-inclusive). */
  vatOere: number;
};

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** a / b rounded half-up, for a >= 0 and b > 0: halves of an øre go to the larger amount. */
function divRoundHalfUp(a: bigint, b: bigint): bigint {
  return (2n * a + b) / (2n * b);
}

/**
 * The money of an order, in øre, from its lines, its discounts (none, one, or several applied one after another) and
 * the shop's settings:
 *
 * - subtotal = Σ unit price × quantity;
 * - discounts, in the order given, each on what the earlier ones left: percent → that amount × value / 100 rounded
 *   half-up to the øre; fixed → value; never more than what is left (so the goods never go below zero);
 * - shipping: 0 for an empty order or when subtotal − discount reaches the free-shipping threshold, else the fee;
 * - total = subtotal − discount + shipping;
 * - VAT: prices include VAT, so the VAT share of the total is total × rate / (10000 + rate) (rate in basis points),
 *   rounded half-up to the øre.
 *
 * Computed in BigInt so nothing is rounded by floating point; an amount beyond the API's integer bound
 * (2^53 − 1 øre) is refused with 400 instead of being stored wrong.
 */
export function priceOrder(lines: readonly PriceLine[], discount: DiscountTerms | readonly DiscountTerms[] | null, settings: PricingSettings): PriceBreakdown {
  return priceOrderParts(lines, discount, settings).money;
}

/** priceOrder, with what each discount took (øre, in the order given): a checkout session shows them one by one. */
export function priceOrderParts(
  lines: readonly PriceLine[],
  discount: DiscountTerms | readonly DiscountTerms[] | null,
  settings: PricingSettings,
): { money: PriceBreakdown; discountParts: number[] } {
  const subtotal = lines.reduce((sum, l) => sum + BigInt(l.unitPriceDkk) * BigInt(l.quantity), 0n);
  const discounts: readonly DiscountTerms[] = discount === null ? [] : Array.isArray(discount) ? discount : [discount as DiscountTerms];
  let goods = subtotal;
  const parts: bigint[] = [];
  for (const d of discounts) {
    let amount = d.type === 'percent' ? divRoundHalfUp(goods * BigInt(d.value), 100n) : BigInt(d.value);
    if (amount > goods) amount = goods;
    parts.push(amount);
    goods -= amount;
  }
  const discountAmount = subtotal - goods;

  const threshold = settings.freeShippingThresholdDkk;
  const freeShipping = lines.length === 0 || (threshold !== null && goods >= BigInt(threshold));
  const shipping = freeShipping ? 0n : BigInt(settings.shippingFeeDkk);
  const total = goods + shipping;
  const rate = BigInt(settings.vatRateBasisPoints);
  const vat = divRoundHalfUp(total * rate, 10_000n + rate);

  for (const [name, value] of [['subtotal', subtotal], ['total', total]] as const) {
    if (value > MAX) throw new AppError('value_out_of_range', `The order ${name} would exceed ${MAX} øre; reduce the quantities.`);
  }
  return {
    money: {
      subtotalDkk: Number(subtotal),
      discountDkk: Number(discountAmount),
      shippingDkk: Number(shipping),
      totalDkk: Number(total),
      vatOere: Number(vat),
    },
    discountParts: parts.map(Number),
  };
}
