import type { Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { manualPaymentProvider, type PaymentProvider } from '../domain/payment.ts';
import { priceOrder } from '../domain/pricing.ts';
import { AppError } from '../errors.ts';
import { cartSnapshot, lockOpenCart } from './carts.ts';
import { discountTerms, redeemDiscount } from './discounts.ts';
import { loadOrder } from './orders.ts';
import { loadSettings, pricingSettings } from './settings.ts';

/** How orders placed by agents are paid; swapping in a real processor means passing another provider here. */
const paymentProvider: PaymentProvider = manualPaymentProvider;

type TakenLine = { productId: string; slug: string; name: string; priceDkk: bigint; quantity: bigint };

/**
 * Takes the cart's units from stock, in product-id order (so concurrent checkouts lock rows in the same order and
 * cannot deadlock). Each UPDATE only matches while enough stock is left; concurrent checkouts queue on the row lock
 * and re-check, so stock never goes below zero and never oversells. The first short line aborts the transaction.
 */
async function takeStock(tx: Tx, lines: readonly { productId: string; quantity: bigint }[]): Promise<TakenLine[]> {
  const taken: TakenLine[] = [];
  for (const line of [...lines].sort((a, b) => (a.productId < b.productId ? -1 : 1))) {
    const [row] = await tx.$queryRaw<Omit<TakenLine, 'quantity'>[]>`
      UPDATE "Product" SET stock = stock - ${line.quantity}, "updatedAt" = now()
      WHERE id = ${line.productId} AND "deletedAt" IS NULL AND stock >= ${line.quantity}
      RETURNING id AS "productId", slug, name, "priceDkk"`;
    if (!row) {
      const p = await tx.product.findUniqueOrThrow({ where: { id: line.productId }, select: { slug: true, stock: true, deletedAt: true } });
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

export type Contact = {
  email: string; shippingName: string; shippingAddress: string; shippingZip: string; shippingCity: string;
  billingName?: string; billingAddress?: string; billingZip?: string; billingCity?: string; billingCountry?: string; phoneNumber?: string;
};

export type Buyer = { keyId: string; agentName: string | null };

/**
 * Turns an open cart into an order in one transaction: stock taken, the discount's use counted, the order priced
 * like the cart preview, payment started and the cart closed. Any failure rolls all of it back.
 */
export async function placeOrder(tx: Tx, buyer: Buyer, cartId: string, contact: Contact, discountCode: string | undefined) {
  const cart = await lockOpenCart(tx, buyer.keyId, cartId);
  const cartBefore = await cartSnapshot(tx, cartId);
  const lines = await tx.cartItem.findMany({ where: { cartId }, select: { productId: true, quantity: true } });
  if (lines.length === 0) throw new AppError('empty_cart', `Cart "${cartId}" is empty.`);

  const taken = await takeStock(tx, lines);
  const discount = discountCode ? await redeemDiscount(tx, discountCode) : null;
  const settings = await loadSettings(tx);
  const money = priceOrder(
    taken.map((t) => ({ unitPriceDkk: Number(t.priceDkk), quantity: Number(t.quantity) })),
    discount && discountTerms(discount),
    pricingSettings(settings),
  );

  const order = await tx.order.create({
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
      aiAgentSource: buyer.agentName,
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
  await tx.order.update({ where: { id: order.id }, data: { paymentMethod: payment.paymentMethod, stripePaymentIntentId: payment.externalId } });
  await tx.cart.update({
    where: { id: cart.id },
    data: { status: 'checked_out', orderId: order.id, email: contact.email, discountCode: discount?.code ?? null },
  });

  return {
    order,
    money,
    taken: taken.map((t) => ({ productId: t.productId, productSlug: t.slug, productName: t.name, quantity: Number(t.quantity), unitPriceDkk: Number(t.priceDkk) })),
    discountCode: discount?.code ?? null,
    payment: { provider: paymentProvider.name, instructions: payment.instructions },
    orderSnapshot: plainJson(await loadOrder(tx, order.id)),
    cartBefore,
    cartAfter: await cartSnapshot(tx, cartId),
  };
}
