import { z } from 'zod';
import { FullOrder } from '../schemas/orders.ts';
import { PublishStatus } from '../schemas/publish-status.ts';
import { timestamp } from '../schemas/time.ts';

// The `object` of each entity's events: the entity as its audit entries record it (a row as plain JSON: amounts
// and counts as integers, times as ISO 8601 UTC). Open objects: a field added to an entity later is not a breaking
// change for receivers.

const int = () => z.number().int();
const optText = () => z.string().nullable();
const optTime = () => timestamp().nullable();
const json = () => z.unknown().describe('JSON as stored (object, array or null).');

const ProductObject = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  brand: optText(),
  priceDkk: int().describe('Øre.'),
  stock: int(),
  featured: z.boolean(),
  frameColor: optText(),
  lensColor: optText(),
  images: z.array(z.string()),
  categoryId: optText(),
  attributes: json(),
  answerSummary: optText(),
  faq: json(),
  useCases: json(),
  comparisonFacts: json(),
  createdAt: timestamp(),
  updatedAt: timestamp(),
  deletedAt: optTime().describe('Set when the product was soft-deleted.'),
});

const VariantObject = z.object({
  id: z.string(), productId: z.string(), sku: optText(), optionValues: z.array(z.string()).describe('One value per option, in the product’s option order.'),
  priceDkk: int().describe('Øre.'), compareAtPriceDkk: int().nullable(), stock: int(), trackStock: z.boolean(), allowBackorder: z.boolean(),
  position: int(), images: z.array(z.string()), createdAt: timestamp(), updatedAt: timestamp(), deletedAt: optTime(),
});

const CategoryObject = z.object({
  id: z.string(), slug: z.string(), name: z.string(), description: optText(), createdAt: timestamp(), updatedAt: timestamp(),
});

const PageObject = z.object({
  id: z.string(), slug: z.string(), title: z.string(), body: z.string(), status: PublishStatus, layout: json(), vibeHtml: optText(),
  createdAt: timestamp(), updatedAt: timestamp(),
});

const ServiceObject = z.object({
  id: z.string(), slug: z.string(), title: z.string(), body: z.string(), shortDescription: optText(), priceString: optText(),
  heroImage: optText(), features: z.array(z.string()), showInNav: z.boolean(), navOrder: int(), status: PublishStatus,
  createdAt: timestamp(), updatedAt: timestamp(),
});

const CartObject = z.object({
  id: z.string(), email: optText(), discountCode: optText(), status: z.enum(['open', 'checked_out']), orderId: optText(),
  items: z.array(z.object({ productId: z.string(), quantity: int() })), createdAt: timestamp(), updatedAt: timestamp(),
});

const DiscountObject = z.object({
  id: z.string(), code: z.string(), type: z.enum(['percent', 'fixed']), value: int(), validUntil: optTime(), usageLimit: int().nullable(),
  active: z.boolean(), createdAt: timestamp(),
});

const SettingsObject = z.object({
  shopName: z.string(), currency: z.string(), shippingFeeDkk: int(), freeShippingThresholdDkk: int().nullable(), vatRateBasisPoints: int(),
  updatedAt: timestamp(),
});

const ShippingRateObject = z.object({
  id: z.string(), title: z.string(), serviceLevel: z.string(), countryCode: optText().describe('ISO 3166-1 alpha-2; null: every country.'),
  priceDkk: int().describe('Øre.'), freeFromDkk: int().nullable().describe('Free from this goods amount (øre); null: never by amount.'),
  freeForVariantIds: z.array(z.string()), updatedAt: timestamp(),
});

const FeatureObject = z.object({ key: z.string(), enabled: z.boolean(), description: optText(), updatedAt: timestamp() });

/** A webhook endpoint as events and audit entries show it: never its secrets. */
export const WebhookEndpointObject = z.object({
  id: z.string(),
  url: z.string(),
  description: optText(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: optText(),
  previousSecretExpiresAt: optTime().describe('Until when the old secret also signs.'),
  // Whose access every delivery is checked against (docs/webhooks.md, "Who receives what").
  creatorKeyId: optText(),
  creatorGrantId: optText(),
  createdAt: timestamp(),
  updatedAt: timestamp(),
});

export const ENTITY_OBJECTS = {
  product: ProductObject,
  variant: VariantObject,
  category: CategoryObject,
  page: PageObject,
  service: ServiceObject,
  order: FullOrder,
  cart: CartObject,
  discount: DiscountObject,
  settings: SettingsObject,
  shipping_rate: ShippingRateObject,
  feature: FeatureObject,
  webhook_endpoint: WebhookEndpointObject,
} as const satisfies Record<string, z.ZodType>;

export type EntityType = keyof typeof ENTITY_OBJECTS;
