import type { DbClient, Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { priceOrder } from '../domain/pricing.ts';
import { AppError } from '../errors.ts';
import type { Cart } from '../generated/prisma/client.ts';
import { MAX_INT } from '../schemas/numbers.ts';
import { discountTerms, usableDiscount } from './discounts.ts';
import { loadSettings, pricingSettings } from './settings.ts';

/** A cart of the calling key. Another key's cart is reported as missing, so cart ids reveal nothing. */
export async function findCart(db: DbClient, keyId: string, cartId: string): Promise<Cart> {
  const cart = await db.cart.findUnique({ where: { id: cartId } });
  if (!cart || cart.apiKeyId !== keyId) throw new AppError('not_found', `No cart with id "${cartId}".`);
  return cart;
}

/**
 * Locks the cart row for the rest of the transaction and checks it is still open: every change to a cart and its
 * checkout queue on this lock, so an item added while a checkout runs cannot slip past it, and a cart is checked out
 * at most once.
 */
export async function lockOpenCart(tx: Tx, keyId: string, cartId: string): Promise<Cart> {
  await tx.$queryRaw`SELECT id FROM "Cart" WHERE id = ${cartId} FOR UPDATE`;
  const cart = await findCart(tx, keyId, cartId);
  if (cart.status !== 'open') throw new AppError('cart_closed', `Cart "${cartId}" was already checked out (order ${cart.orderId}).`);
  return cart;
}

/** What a cart's audit entries record: the cart row and its lines. */
export async function cartSnapshot(db: DbClient, cartId: string) {
  const cart = await db.cart.findUniqueOrThrow({
    where: { id: cartId },
    include: { items: { select: { productId: true, quantity: true }, orderBy: { productId: 'asc' } } },
  });
  return plainJson(cart);
}

/** The priced preview: current prices, the discount if it is usable now, the shop's shipping and VAT rules. */
export async function cartView(db: DbClient, cart: Cart, discountCode: string | undefined) {
  const lines = await db.cartItem.findMany({
    where: { cartId: cart.id },
    include: { product: { select: { slug: true, name: true, priceDkk: true, stock: true, deletedAt: true } } },
    orderBy: { id: 'asc' },
  });
  const settings = await loadSettings(db);
  const discount = discountCode ? await usableDiscount(db, discountCode) : null;
  const priced = lines.map((l) => ({ unitPriceDkk: Number(l.product.priceDkk), quantity: Number(l.quantity) }));
  const money = priceOrder(priced, discount && discountTerms(discount), pricingSettings(settings));
  return {
    cartId: cart.id,
    status: cart.status,
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
export async function addToCart(tx: Tx, cartId: string, productSlug: string, units: number): Promise<void> {
  const product = await tx.product.findFirst({ where: { slug: productSlug, deletedAt: null }, select: { id: true } });
  if (!product) throw new AppError('not_found', `No product with slug "${productSlug}".`);
  const line = await tx.cartItem.findUnique({ where: { cartId_productId: { cartId, productId: product.id } } });
  const total = (line?.quantity ?? 0n) + BigInt(units);
  if (total > BigInt(MAX_INT)) throw new AppError('value_out_of_range', `quantity: the cart would hold more than ${MAX_INT} units of "${productSlug}".`);
  if (line) await tx.cartItem.update({ where: { id: line.id }, data: { quantity: total } });
  else await tx.cartItem.create({ data: { cartId, productId: product.id, quantity: total } });
}

/** Sets the units of a product already in the cart; 0 removes the line. */
export async function setCartLine(tx: Tx, cartId: string, productSlug: string, units: number): Promise<void> {
  // Soft-deleted products included: removing a product that is no longer sold must stay possible.
  const product = await tx.product.findUnique({ where: { slug: productSlug }, select: { id: true } });
  const line = product && await tx.cartItem.findUnique({ where: { cartId_productId: { cartId, productId: product.id } } });
  if (!line) throw new AppError('not_found', `Cart "${cartId}" has no line for "${productSlug}".`);
  if (units === 0) await tx.cartItem.delete({ where: { id: line.id } });
  else await tx.cartItem.update({ where: { id: line.id }, data: { quantity: BigInt(units) } });
}
