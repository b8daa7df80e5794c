import { z } from 'zod';
import { AppError } from '../errors.ts';
import { defineTool, type ReadContext, type WriteContext } from '../registry/define-tool.ts';
import { answeredAs } from '../schemas/domain-issue.ts';
import { MAX_INT } from '../schemas/numbers.ts';
import { OrderStatusSchema } from '../schemas/orders.ts';
import { cartIdRef, discountCodeRef } from '../schemas/references.ts';
import { slugRef, text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { emailInput } from '../schemas/web.ts';
import {
  addCartLine, cartLines, cartSnapshot, cartView, findCart, lockOpenCart, pricedCart, setCartLine, type CartLine, type LineRef,
} from '../services/carts.ts';
import { paymentLinkLater } from '../domain/payment.ts';
import { checkoutSetup, placeOrder, type Buyer } from '../services/checkout.ts';
import { openCheckoutSession } from '../services/payments.ts';

const quantity = (min: 0 | 1) => z.number().int().min(min).max(MAX_INT);

const CartLineOut = z.object({
  productSlug: z.string(),
  productName: z.string(),
  variantId: z.string(),
  sku: z.string().nullable(),
  options: z.record(z.string(), z.string()),
  unitPriceDkk: z.number().int(),
  quantity: z.number().int(),
  lineTotalDkk: z.number().int(),
  available: z.boolean().describe('The variant is still sold and has this many units (or backorder) right now (checked again at checkout).'),
});

/** The amounts of priceOrder(), in øre, as both the priced cart and the placed order report them. */
const MoneyFields = {
  subtotalDkk: z.number().int(),
  discountDkk: z.number().int(),
  shippingDkk: z.number().int(),
  totalDkk: z.number().int(),
  vatOere: z.number().int(),
};

const CartOut = z.object({
  cartId: z.string(),
  status: z.enum(['open', 'checked_out']),
  orderId: z.string().nullable(),
  currency: z.string(),
  items: z.array(CartLineOut),
  discountCode: z.string().nullable(),
  ...MoneyFields,
  createdAt: timestamp(),
});

const CheckoutOut = z.object({
  orderId: z.string(),
  status: OrderStatusSchema,
  currency: z.string(),
  items: z.array(z.object({
    productSlug: z.string(), productName: z.string(), variantId: z.string(), sku: z.string().nullable(), options: z.record(z.string(), z.string()),
    quantity: z.number().int(), unitPriceDkk: z.number().int(),
  })),
  discountCode: z.string().nullable(),
  ...MoneyFields,
  payment: z.object({
    provider: z.enum(['manual', 'stripe']),
    instructions: z.string(),
    url: z.string().nullable().optional().describe('Stripe Checkout page; null: use orders.payment_link.'),
    expiresAt: timestamp().nullable().optional(),
  }),
});

function keyIdOf(ctx: Pick<ReadContext, 'principal'>): string {
  // Unreachable for a cart:write tool (invokeTool refuses anonymous calls), but keeps carts from ever being ownerless.
  if (!ctx.principal) throw new AppError('unauthorized', 'Carts belong to an API key; send one.');
  return ctx.principal.keyId;
}

/**
 * What a line buys: a variant by id or SKU, or a product by slug while it has exactly one variant (else 422
 * variant_required listing them). Exactly one of the three.
 */
const lineRef = {
  productSlug: slugRef().optional(),
  variantId: text({ min: 1, max: 100 }).optional(),
  sku: text({ min: 1, max: 100 }).optional(),
};
// A domain rule rather than a oneOf in the published schema (tokens in every tool list): 422 variant_required.
const ONE_REF = { message: 'name what to buy with exactly one of variantId, sku, productSlug', params: answeredAs('variant_required') };
const oneRef = (i: { productSlug?: string; variantId?: string; sku?: string }) =>
  [i.productSlug, i.variantId, i.sku].filter((v) => v !== undefined).length === 1;
const toRef = (i: { productSlug?: string; variantId?: string; sku?: string }): LineRef =>
  i.variantId !== undefined ? { variantId: i.variantId } : i.sku !== undefined ? { sku: i.sku } : { productSlug: i.productSlug ?? '' };

const itemInput = z.strictObject({ ...lineRef, quantity: quantity(1) }).refine(oneRef, ONE_REF);

/** Locks the open cart, applies `change`, audits the cart's lines before and after, and returns the priced cart. */
async function changeCart(ctx: WriteContext, cartId: string, change: () => Promise<{ before: CartLine[]; after: CartLine[] }>) {
  const { cart, terms } = await lockOpenCart(ctx.db, keyIdOf(ctx), cartId);
  const { before, after } = await change();
  ctx.audit({ entityType: 'cart', entityId: cartId, before: cartSnapshot(cart, before), after: cartSnapshot(cart, after) });
  return pricedCart(cart, after, terms, null);
}

/** A cart's lines are history of what an agent did, not state an operator restores: cart entries are append-only. */
const CART_AUDIT = { appendOnly: ['cart'] };

export const cartTools = [
  defineTool({
    name: 'cart.create',
    title: 'Create a cart',
    description: 'Starts a cart owned by the calling key (other keys cannot see it), optionally with items. Returns the priced cart. Build it with cart.add_item / cart.update_item, then place the order with checkout.create_order.',
    scope: 'cart:write',
    kind: 'write',
    errors: ['not_found', 'value_out_of_range', 'variant_required'],
    audit: CART_AUDIT,
    input: z.strictObject({ items: z.array(itemInput).max(100).optional() }),
    output: CartOut,
    async handler({ items }, ctx) {
      const cart = await ctx.db.cart.create({ data: { apiKeyId: keyIdOf(ctx), status: 'open' } });
      let lines: CartLine[] = [];
      for (const item of items ?? []) lines = (await addCartLine(ctx.db, cart.id, toRef(item), item.quantity)).after;
      ctx.audit({ entityType: 'cart', entityId: cart.id, before: null, after: cartSnapshot(cart, lines) });
      return cartView(ctx.db, cart, undefined);
    },
  }),

  defineTool({
    name: 'cart.add_item',
    title: 'Add a product to a cart',
    description: 'Adds quantity units of a live variant (by variantId or sku; by productSlug when it has one) to an open cart. Stock is checked at checkout; `available` says whether it would pass now.',
    scope: 'cart:write',
    kind: 'write',
    errors: ['not_found', 'cart_closed', 'value_out_of_range', 'variant_required'],
    audit: CART_AUDIT,
    input: z.strictObject({ cartId: cartIdRef(), ...lineRef, quantity: quantity(1) }).refine(oneRef, ONE_REF),
    output: CartOut,
    handler: ({ cartId, quantity: units, ...ref }, ctx) => changeCart(ctx, cartId, () => addCartLine(ctx.db, cartId, toRef(ref), units)),
  }),

  defineTool({
    name: 'cart.update_item',
    title: 'Change a cart line',
    description: 'Sets the quantity of a product already in an open cart; quantity 0 removes the line.',
    scope: 'cart:write',
    kind: 'write',
    idempotent: true,
    errors: ['not_found', 'cart_closed', 'value_out_of_range', 'variant_required'],
    audit: CART_AUDIT,
    input: z.strictObject({ cartId: cartIdRef(), ...lineRef, quantity: quantity(0) }).refine(oneRef, ONE_REF),
    output: CartOut,
    handler: ({ cartId, quantity: units, ...ref }, ctx) => changeCart(ctx, cartId, async () => {
      const before = await cartLines(ctx.db, cartId);
      await setCartLine(ctx.db, cartId, toRef(ref), units);
      return { before, after: await cartLines(ctx.db, cartId) };
    }),
  }),

  defineTool({
    name: 'cart.get',
    title: 'Get a priced cart',
    description: 'Returns the cart priced as checkout would price it now: current prices, shipping (free from the shop’s threshold) and the VAT included. Pass discountCode to preview a code (422 discount_unavailable if it cannot be used). A checked-out cart names its orderId.',
    scope: 'cart:write',
    kind: 'read',
    errors: ['not_found', 'discount_unavailable', 'value_out_of_range'],
    input: z.strictObject({ cartId: cartIdRef(), discountCode: discountCodeRef().optional() }),
    output: CartOut,
    handler: async ({ cartId, discountCode }, ctx) => cartView(ctx.db, await findCart(ctx.db, keyIdOf(ctx), cartId), discountCode),
  }),

  defineTool({
    name: 'checkout.create_order',
    title: 'Check out a cart',
    description:
      'Turns an open cart into an order in status pending_payment (channel "agent", isAiGenerated true, aiAgentSource = the key’s name), priced like cart.get. Stock is taken and the discount code’s use counted atomically: 422 out_of_stock or 422 discount_unavailable (unknown, inactive, expired or used up) leave nothing changed. A cart is checked out once (422 cart_closed); an empty one gives 422 empty_cart. Payment: manual (the shop marks it paid with orders.update_status), or Stripe: hand the buyer payment.url.',
    scope: 'cart:write',
    kind: 'write',
    errors: ['not_found', 'cart_closed', 'empty_cart', 'out_of_stock', 'discount_unavailable', 'value_out_of_range'],
    // A placed order is undone by a transition (cancelled), never by a restore.
    audit: { appendOnly: ['order', 'cart'] },
    input: z.strictObject({
      cartId: cartIdRef(),
      email: emailInput(),
      shippingName: text({ min: 1, max: 200 }),
      shippingAddress: text({ min: 1, max: 500 }),
      shippingZip: text({ min: 1, max: 20 }),
      shippingCity: text({ min: 1, max: 200 }),
      billingName: text({ min: 1, max: 200 }).optional(),
      billingAddress: text({ min: 1, max: 500 }).optional(),
      billingZip: text({ min: 1, max: 20 }).optional(),
      billingCity: text({ min: 1, max: 200 }).optional(),
      billingCountry: text({ min: 2, max: 100 }).optional(),
      phoneNumber: text({ min: 3, max: 40 }).optional(),
      discountCode: discountCodeRef().optional(),
    }),
    output: CheckoutOut,
    async handler({ cartId, discountCode, ...contact }, ctx) {
      const buyer: Buyer = { keyId: keyIdOf(ctx), agentName: ctx.principal?.name ?? null, channel: 'agent' };
      const placed = await placeOrder(ctx.db, buyer, cartId, contact, discountCode, checkoutSetup(ctx.config));
      ctx.audit({
        entityType: 'order',
        entityId: placed.order.id,
        before: null,
        after: placed.orderSnapshot,
        meta: { cartId, stockTaken: placed.taken.map((t) => ({ productId: t.productId, variantId: t.variantId, quantity: t.quantity })), discountCode: placed.discountCode },
      });
      ctx.audit({ entityType: 'cart', entityId: cartId, before: placed.cartBefore, after: placed.cartAfter });
      return {
        orderId: placed.order.id,
        status: placed.order.status,
        currency: placed.order.currency,
        items: placed.taken,
        discountCode: placed.order.discountCode,
        ...placed.money,
        payment: placed.payment.provider === 'stripe' ? { ...placed.payment, url: null, expiresAt: null } : placed.payment,
      };
    },
    // The Checkout Session is opened once the order has committed: no row lock waits on Stripe, and an order Stripe
    // cannot be reached for stays a valid pending_payment order whose link orders.payment_link gets later.
    async completeAfterCommit(result, ctx) {
      if (result.payment.provider !== 'stripe') return result;
      try {
        const { url, expiresAt } = await openCheckoutSession(ctx.db, ctx.config, result.orderId);
        return { ...result, payment: { ...result.payment, url, expiresAt } };
      } catch (err) {
        ctx.log.warn({ err, order: result.orderId }, 'no Stripe Checkout Session for a placed order');
        const instructions = err instanceof AppError && err.code === 'order_not_payable' ? err.message : paymentLinkLater(result.orderId);
        return { ...result, payment: { ...result.payment, url: null, expiresAt: null, instructions } };
      }
    },
  }),
];
