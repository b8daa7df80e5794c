import { z } from 'zod';
import { ORDER_STATUSES } from '../domain/order-transitions.ts';
import { timestamp } from './time.ts';

// Order shapes several tools return (orders, customers, checkout).

export const OrderStatusSchema = z.enum(ORDER_STATUSES);

const ListItemLine = z.object({ productName: z.string(), quantity: z.number().int(), unitPriceDkk: z.number().int() });

/** A list item (docs/commerce.md). itemCount is the number of units (Σ quantity), not of lines: `items` already gives those. */
export const OrderListItem = z.object({
  id: z.string(),
  email: z.string(),
  shippingName: z.string(),
  status: OrderStatusSchema,
  subtotalDkk: z.number().int(),
  discountDkk: z.number().int(),
  shippingDkk: z.number().int(),
  totalDkk: z.number().int(),
  discountCode: z.string().nullable(),
  itemCount: z.number().int().min(0),
  items: z.array(ListItemLine),
  createdAt: timestamp(),
});

const OrderItemOut = z.object({
  id: z.string(),
  orderId: z.string(),
  productId: z.string(),
  productName: z.string(),
  unitPriceDkk: z.number().int(),
  quantity: z.number().int(),
  variantId: z.string().nullable(),
  variantSku: z.string().nullable(),
  variantAttributes: z.unknown().describe('Opaque JSON snapshot of the chosen variant attributes, or null.'),
});

const str = () => z.string();
const optStr = () => z.string().nullable();
const optTime = () => timestamp().nullable();

/** The full order (docs/commerce.md): every field, always present (null when unset). */
export const FullOrder = z.object({
  id: str(),
  userId: optStr(),
  email: str(),
  status: OrderStatusSchema,
  shippingName: str(),
  shippingAddress: str(),
  shippingZip: str(),
  shippingCity: str(),
  billingName: optStr(),
  billingAddress: optStr(),
  billingZip: optStr(),
  billingCity: optStr(),
  billingCountry: optStr(),
  phoneNumber: optStr(),
  subtotalDkk: z.number().int(),
  shippingDkk: z.number().int(),
  discountDkk: z.number().int(),
  totalDkk: z.number().int(),
  vatOere: z.number().int().nullable(),
  invoiceProvider: optStr(),
  invoiceId: optStr(),
  invoicePdfUrl: optStr(),
  discountCode: optStr(),
  isAiGenerated: z.boolean(),
  aiAgentSource: optStr(),
  carrier: optStr(),
  trackingNumber: optStr(),
  trackingUrl: optStr(),
  estDeliveryFrom: optTime(),
  estDeliveryTo: optTime(),
  createdAt: timestamp(),
  stripePaymentIntentId: optStr(),
  paymentMethod: optStr(),
  paidAt: optTime(),
  confirmationEmailSentAt: optTime(),
  refundedAt: optTime(),
  disputedAt: optTime(),
  currency: str(),
  fxRate: z.number(),
  channel: str(),
  acpSessionId: optStr(),
  refundedDkk: z.number().int().describe('Øre given back so far (orders.refund, Stripe refunds, a lost dispute).'),
  stripeCheckoutSessionId: optStr().describe('The Stripe Checkout Session the buyer pays in (PAYMENTS_PROVIDER=stripe).'),
  items: z.array(OrderItemOut),
});

