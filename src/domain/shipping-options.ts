// Which fulfillment options a checkout offers for a destination (docs/agentic-checkout.md, "Fulfillment options"),
// decided without the database: from the shop's shipping rates, or, when it has none, from the one shipping fee of
// its settings.
import type { PricingSettings } from './pricing.ts';

/** A shipping rate as the ShippingRate table holds it. */
export type ShippingRateTerms = {
  id: string; title: string; serviceLevel: string; countryCode: string | null; priceDkk: bigint; freeFromDkk: bigint | null; freeForVariantIds: string[];
};

/** An option a checkout offers: its id, the title shown to the buyer, and what it costs (øre). */
export type ShippingOption = { id: string; title: string; amount: number };

/** The option of a shop without shipping rates: its settings' fee, free from their threshold. */
export const STANDARD_OPTION_ID = 'standard';

/** What the options depend on: where the goods go, what they are worth after discounts, and which variants they are. */
export type ShippingQuote = { country: string; goodsDkk: number; variantIds: readonly string[] };

const FREE = ' (Free)';

/**
 * The options for a destination. Without rates: `standard` at the settings' fee (free from their threshold). With
 * rates: per service level the rate of the destination's country, else the rate for every country; a rate is free
 * when the goods reach its amount or hold one of its variants, and then says so in its title. Cheapest first.
 */
export function shippingOptions(rates: readonly ShippingRateTerms[], pricing: PricingSettings, quote: ShippingQuote): ShippingOption[] {
  if (rates.length === 0) {
    const free = pricing.freeShippingThresholdDkk !== null && quote.goodsDkk >= pricing.freeShippingThresholdDkk;
    return [{ id: STANDARD_OPTION_ID, title: 'Standard shipping', amount: free ? 0 : pricing.shippingFeeDkk }];
  }
  const country = quote.country.trim().toUpperCase();
  const byLevel = new Map<string, ShippingRateTerms>();
  for (const rate of rates) {
    const own = rate.countryCode?.toUpperCase();
    if (own !== undefined && own !== country) continue;
    const held = byLevel.get(rate.serviceLevel);
    // A rate of the country itself wins over the rate for every country.
    if (!held || (held.countryCode === null && own !== undefined)) byLevel.set(rate.serviceLevel, rate);
  }
  const variants = new Set(quote.variantIds);
  return [...byLevel.values()]
    .map((rate) => {
      const free = (rate.freeFromDkk !== null && BigInt(quote.goodsDkk) >= rate.freeFromDkk) || rate.freeForVariantIds.some((v) => variants.has(v));
      return { id: rate.id, title: free ? `${rate.title}${FREE}` : rate.title, amount: free ? 0 : Number(rate.priceDkk) };
    })
    .sort((a, b) => a.amount - b.amount || a.id.localeCompare(b.id));
}
