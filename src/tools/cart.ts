import { z } from 'zod';
import type { Cart } from '../generated/prisma/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { manualPaymentProvider, type PaymentProvider } from '../domain/payment.ts';
import { priceOrder } from '../domain/pricing.ts';
import { AppError } from '../errors.ts';
import { defineTool, type ToolContext } from '../registry/define-tool.ts';
import { discountCodeRef, discountTerms, redeemDiscount, usableDiscount } from './discounts.ts';
import { emailInput, loadOrder } from './orders.ts';
import { loadSettings, pricingSettings } from './settings.ts';
import { MAX_INT, slugRef, text, timestamp } from './shared-schemas.ts';

const OPEN = 'open';
const CHECKED_OUT = 'checked_out';

/** How orders placed by agents are paid; swapping in a real processor means passing another provider here. */
const paymentProvider: PaymentProvider = manualPaymentProvider;

const cartIdRef = () => text({ min: 1, max: 100 });
const quantity = (min: 0 | 1) => z.number().int().min(min).max(MAX_INT);

const CartLineOut = z.object({
  productSlug: z.string(),
  productName: z.string(),
  unitPriceDkk: z.number().int(),
  quantity: z.number().int(),
  lineTotalDkk: z.number().int(),
  available: z.boolean().describe('The product is still sold and has this many units in stock right now (checked again at checkout).'),
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
  status: z.enum([OPEN, CHECKED_OUT]),
  orderId: z.string().nullable(),
  currency: z.string(),
  items: z.array(CartLineOut),
  discountCode: z.string().nullable(),
  ...MoneyFields,
  createdAt: timestamp(),
});

const CheckoutOut = z.object({
  orderId: z.string(),
  status: z.string(),
  currency: z.string(),
  items: z.array(z.object({ productSlug: z.string(), productName: z.string(), quantity: z.number().int(), unitPriceDkk: z.number().int() })),
  discountCode: z.string().nullable(),
  ...MoneyFields,
  payment: z.object({ provider: z.string(), instructions: z.string() }),
});

function keyIdOf(ctx: ToolContext): string {
  // Unreachable for a cart:write tool (invokeTool refuses anonymous calls), but keeps carts from ever being ownerless.
  if (!ctx.principal) throw new AppError('unauthorized', 'Carts belong to an API key; send one.');
  return ctx.principal.keyId;
}

/** A cart of the calling key. Another key's cart is reported as missing, so cart ids reveal nothing. */
async function findCart(ctx: ToolContext, cartId: string): Promise<Cart> {
  const cart = await ctx.db.cart.findUnique({ where: { id: cartId } });
  if (!cart || cart.apiKeyId !== keyIdOf(ctx)) throw new AppError('not_found', `No cart with id "${cartId}".`);
  return cart;
}

/**
 * Locks the cart row for the rest of the transaction and checks it is still open: every change to a cart and its
 * checkout queue on this lock, so an item added while a checkout runs cannot slip past it, and a cart is checked out
 * at most once.
 */
async function lockOpenCart(ctx: ToolContext, cartId: string): Promise<Cart> {
  await ctx.db.$queryRaw`SELECT id FROM "Cart" WHERE id = ${cartId} FOR UPDATE`;
  const cart = await findCart(ctx, cartId);
  if (cart.status !== OPEN) throw new AppError('cart_closed', `Cart "${cartId}" was already checked out (order ${cart.orderId}).`);
  return cart;
}

async function cartSnapshot(ctx: ToolContext, cartId: string) {
  const cart = await ctx.db.cart.findUniqueOrThrow({
    where: { id: cartId },
    include: { items: { select: { productId: true, quantity: true }, orderBy: { productId: 'asc' } } },
  });
  return plainJson(cart);
}

/** The priced preview: current prices, the discount if it is usable now, the shop's shipping and VAT rules. */
async function cartView(ctx: ToolContext, cart: Cart, discountCode: string | undefined): Promise<z.input<typeof CartOut>> {
  const lines = await ctx.db.cartItem.findMany({
    where: { cartId: cart.id },
    include: { product: { select: { slug: true, name: true, priceDkk: true, stock: true, deletedAt: true } } },
    orderBy: { id: 'asc' },
  });
  const settings = await loadSettings(ctx.db);
  const discount = discountCode ? await usableDiscount(ctx.db, discountCode) : null;
  const priced = lines.map((l) => ({ unitPriceDkk: Number(l.product.priceDkk), quantity: Number(l.quantity) }));
  const money = priceOrder(priced, discount && discountTerms(discount), pricingSettings(settings));
  return {
    cartId: cart.id,
    status: cart.status === OPEN ? OPEN : CHECKED_OUT,
    orderId: cart.orderId,
    currency: settings.currency,
    items: lines.map((l, i) => ({
      productSlug: l.product.slug,
      productName: l.product.name,
      unitPriceDkk: priced[i].unitPriceDkk,
      quantity: priced[i].quantity,
      // Exact in floating point: priceOrder has already checked that the subtotal, and so every line, is below 2^53.
      lineTotalDkk: priced[i].unitPriceDkk * priced[i].quantity,
      available: l.product.deletedAt === null && l.product.stock >= l.quantity,
    })),
    discountCode: discount?.code ?? null,
    ...money,
    createdAt: cart.createdAt.toISOString(),
  };
}

/** Adds units of a live product to a locked open cart (merging with a line of the same product). */
async function addToCart(ctx: ToolContext, cartId: string, productSlug: string, units: number): Promise<void> {
  const product = await ctx.db.product.findFirst({ where: { slug: productSlug, deletedAt: null }, select: { id: true } });
  if (!product) throw new AppError('not_found', `No product with slug "${productSlug}".`);
  const line = await ctx.db.cartItem.findUnique({ where: { cartId_productId: { cartId, productId: product.id } } });
  const total = (line?.quantity ?? 0n) + BigInt(units);
  if (total > BigInt(MAX_INT)) throw new AppError('invalid_request', `quantity: the cart would hold more than ${MAX_INT} units of "${productSlug}".`);
  if (line) await ctx.db.cartItem.update({ where: { id: line.id }, data: { quantity: total } });
  else await ctx.db.cartItem.create({ data: { cartId, productId: product.id, quantity: total } });
}

type TakenLine = { productId: string; slug: string; name: string; priceDkk: bigint; quantity: bigint };

/**
 * Takes the cart's units from stock, in product-id order (so concurrent checkouts lock rows in the same order and
 * cannot deadlock). Each UPDATE only matches while enough stock is left; concurrent checkouts queue on the row lock
 * and re-check, so stock never goes below zero and never oversells. The first short line aborts the transaction.
 */
async function takeStock(ctx: ToolContext, lines: readonly { productId: string; quantity: bigint }[]): Promise<TakenLine[]> {
  const taken: TakenLine[] = [];
  for (const line of [...lines].sort((a, b) => (a.productId < b.productId ? -1 : 1))) {
    const [row] = await ctx.db.$queryRaw<Omit<TakenLine, 'quantity'>[]>`
      UPDATE "Product" SET stock = stock - ${line.quantity}, "updatedAt" = now()
      WHERE id = ${line.productId} AND "deletedAt" IS NULL AND stock >= ${line.quantity}
      RETURNING id AS "productId", slug, name, "priceDkk"`;
    if (!row) {
      const p = await ctx.db.product.findUniqueOrThrow({ where: { id: line.productId }, select: { slug: true, stock: true, deletedAt: true } });
      throw new AppError(
        'out_of_stock',
        p.deletedAt !== null
          ? `"${p.slug}" is no longer sold; remove it with cart.update_item (quantity 0).`
          : `"${p.slug}": ${line.quantity} requested, ${p.stock} in stock.`,
      );
    }
    taken.push({ ...row, quantity: line.quantity });
  }
  return taken;
}

const itemInput = z.strictObject({ productSlug: slugRef(), quantity: quantity(1) });

/** Locks the open cart, applies `change`, audits the cart's lines before and after, and returns the priced cart. */
async function changeCart(ctx: ToolContext, cartId: string, change: () => Promise<unknown>) {
  const cart = await lockOpenCart(ctx, cartId);
  const before = await cartSnapshot(ctx, cartId);
  await change();
  ctx.audit({ entityType: 'cart', entityId: cartId, before, after: await cartSnapshot(ctx, cartId) });
  return cartView(ctx, cart, undefined);
}

export const cartTools = [
  defineTool({
    name: 'cart.create',
    title: 'Create a cart',
    description: 'Starts a cart owned by the calling key (other keys cannot see it), optionally with items. Returns the priced cart. Build it with cart.add_item / cart.update_item, then place the order with checkout.create_order.',
    scope: 'cart:write',
    input: z.strictObject({ items: z.array(itemInput).max(100).optional() }),
    output: CartOut,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async handler({ items }, ctx) {
      const cart = await ctx.db.cart.create({ data: { apiKeyId: keyIdOf(ctx), status: OPEN } });
      for (const item of items ?? []) await addToCart(ctx, cart.id, item.productSlug, item.quantity);
      ctx.audit({ entityType: 'cart', entityId: cart.id, before: null, after: await cartSnapshot(ctx, cart.id) });
      return cartView(ctx, cart, undefined);
    },
  }),

  defineTool({
    name: 'cart.add_item',
    title: 'Add a product to a cart',
    description: 'Adds quantity units of a live product to an open cart (added to any units already there). Stock is checked at checkout, not here; `available` in the result tells whether it would pass now.',
    scope: 'cart:write',
    input: z.strictObject({ cartId: cartIdRef(), productSlug: slugRef(), quantity: quantity(1) }),
    output: CartOut,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    handler: ({ cartId, productSlug, quantity: units }, ctx) => changeCart(ctx, cartId, () => addToCart(ctx, cartId, productSlug, units)),
  }),

  defineTool({
    name: 'cart.update_item',
    title: 'Change a cart line',
    description: 'Sets the quantity of a product already in an open cart; quantity 0 removes the line.',
    scope: 'cart:write',
    input: z.strictObject({ cartId: cartIdRef(), productSlug: slugRef(), quantity: quantity(0) }),
    output: CartOut,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    handler: ({ cartId, productSlug, quantity: units }, ctx) =>
      changeCart(ctx, cartId, async () => {
        // Soft-deleted products included: removing a product that is no longer sold must stay possible.
        const product = await ctx.db.product.findUnique({ where: { slug: productSlug }, select: { id: true } });
        const line = product && await ctx.db.cartItem.findUnique({ where: { cartId_productId: { cartId, productId: product.id } } });
        if (!line) throw new AppError('not_found', `Cart "${cartId}" has no line for "${productSlug}".`);
        if (units === 0) await ctx.db.cartItem.delete({ where: { id: line.id } });
        else await ctx.db.cartItem.update({ where: { id: line.id }, data: { quantity: BigInt(units) } });
      }),
  }),

  defineTool({
    name: 'cart.get',
    title: 'Get a priced cart',
    description: 'Returns the cart priced as checkout would price it now: current prices, shipping (free from the shop’s threshold) and the VAT included. Pass discountCode to preview a code (422 discount_unavailable if it cannot be used). A checked-out cart names its orderId.',
    scope: 'cart:write',
    input: z.strictObject({ cartId: cartIdRef(), discountCode: discountCodeRef().optional() }),
    output: CartOut,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: async ({ cartId, discountCode }, ctx) => cartView(ctx, await findCart(ctx, cartId), discountCode),
  }),

  defineTool({
    name: 'checkout.create_order',
    title: 'Check out a cart',
    description:
      'Turns an open cart into an order in status pending_payment (channel "agent", isAiGenerated true, aiAgentSource = the key’s name), priced like cart.get. Stock is taken and the discount code’s use counted atomically: 422 out_of_stock or 422 discount_unavailable (unknown, inactive, expired or used up) leave nothing changed. A cart is checked out once (422 cart_closed); an empty one gives 422 empty_cart. Payment is manual: the shop marks the order paid with orders.update_status.',
    scope: 'cart:write',
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
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    async handler({ cartId, discountCode, ...contact }, ctx) {
      const principal = ctx.principal;
      const cart = await lockOpenCart(ctx, cartId);
      const cartBefore = await cartSnapshot(ctx, cartId);
      const lines = await ctx.db.cartItem.findMany({ where: { cartId }, select: { productId: true, quantity: true } });
      if (lines.length === 0) throw new AppError('empty_cart', `Cart "${cartId}" is empty.`);

      const taken = await takeStock(ctx, lines);
      const discount = discountCode ? await redeemDiscount(ctx.db, discountCode) : null;
      const settings = await loadSettings(ctx.db);
      const money = priceOrder(
        taken.map((t) => ({ unitPriceDkk: Number(t.priceDkk), quantity: Number(t.quantity) })),
        discount && discountTerms(discount),
        pricingSettings(settings),
      );

      const order = await ctx.db.order.create({
        data: {
          ...contact,
          status: 'pending_payment',
          subtotalDkk: BigInt(money.subtotalDkk),
          discountDkk: BigInt(money.discountDkk),
          shippingDkk: BigInt(money.shippingDkk),
          totalDkk: BigInt(money.totalDkk),
          vatOere: BigInt(money.vatOere),
          discountCode: discount?.code ?? null,
          isAiGenerated: true,
          aiAgentSource: principal?.name ?? null,
          channel: 'agent',
          currency: settings.currency,
          // Prices are kept in the shop's currency and orders are charged in it, so there is nothing to convert.
          fxRate: 1,
          items: {
            create: taken.map((t) => ({ productId: t.productId, productName: t.name, unitPriceDkk: t.priceDkk, quantity: t.quantity })),
          },
        },
      });
      const payment = await paymentProvider.start({ orderId: order.id, totalDkk: money.totalDkk, currency: settings.currency });
      await ctx.db.order.update({ where: { id: order.id }, data: { paymentMethod: payment.paymentMethod, stripePaymentIntentId: payment.externalId } });
      await ctx.db.cart.update({
        where: { id: cart.id },
        data: { status: CHECKED_OUT, orderId: order.id, email: contact.email, discountCode: discount?.code ?? null },
      });

      ctx.audit({
        entityType: 'order',
        entityId: order.id,
        before: null,
        after: plainJson(await loadOrder(ctx.db, order.id)),
        meta: { cartId, stockTaken: taken.map((t) => ({ productId: t.productId, quantity: Number(t.quantity) })), discountCode: discount?.code ?? null },
      });
      ctx.audit({ entityType: 'cart', entityId: cartId, before: cartBefore, after: await cartSnapshot(ctx, cartId) });

      return {
        orderId: order.id,
        status: order.status,
        currency: order.currency,
        items: taken.map((t) => ({ productSlug: t.slug, productName: t.name, quantity: Number(t.quantity), unitPriceDkk: Number(t.priceDkk) })),
        discountCode: order.discountCode,
        ...money,
        payment: { provider: paymentProvider.name, instructions: payment.instructions },
      };
    },
  }),
];
