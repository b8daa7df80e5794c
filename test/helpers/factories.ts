// Test data in one place. Tools-level factories go through the API (`createProduct`); the `make*` ones write rows
// straight to the database, for tests that need a state no tool call produces (an order in a given status and date,
// a used-up discount code, a soft-deleted product with a chosen timestamp).
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.ts';
import type { OrderStatus } from '../../src/domain/order-transitions.ts';
import type { TestApp } from './app.ts';

const uid = () => randomBytes(4).toString('hex');

export async function makeProduct(db: Db, opts: { slug?: string; name?: string; priceDkk?: number; stock?: number; deletedAt?: Date } = {}) {
  const slug = opts.slug ?? `product-${uid()}`;
  return db.product.create({
    data: {
      slug,
      name: opts.name ?? `Product ${slug}`,
      description: 'A product made by a test.',
      priceDkk: BigInt(opts.priceDkk ?? 10_000),
      stock: BigInt(opts.stock ?? 10),
      deletedAt: opts.deletedAt ?? null,
    },
  });
}

export async function makeDiscount(
  db: Db,
  opts: { code?: string; type?: 'percent' | 'fixed'; value?: number; usageLimit?: number | null; usageCount?: number; active?: boolean; validUntil?: Date | null } = {},
) {
  return db.discountCode.create({
    data: {
      code: opts.code ?? `CODE${uid().toUpperCase()}`,
      type: opts.type ?? 'percent',
      value: BigInt(opts.value ?? 10),
      usageLimit: opts.usageLimit == null ? null : BigInt(opts.usageLimit),
      usageCount: BigInt(opts.usageCount ?? 0),
      active: opts.active ?? true,
      validUntil: opts.validUntil ?? null,
    },
  });
}

export type OrderOpts = {
  status?: OrderStatus;
  email?: string;
  shippingName?: string;
  createdAt?: Date;
  items?: { productId: string; quantity: number; unitPriceDkk?: number; productName?: string }[];
  discountCode?: string | null;
  isAiGenerated?: boolean;
  totalDkk?: number;
  shippedAt?: Date | null;
  paidAt?: Date | null;
};

/** An order written straight to the database (totals are the items' sum unless totalDkk is given). */
export async function makeOrder(db: Db, opts: OrderOpts = {}) {
  const items = opts.items ?? [];
  const subtotal = items.reduce((s, i) => s + (i.unitPriceDkk ?? 10_000) * i.quantity, 0);
  return db.order.create({
    data: {
      email: opts.email ?? `buyer-${uid()}@example.com`,
      status: opts.status ?? 'pending_payment',
      shippingName: opts.shippingName ?? 'Ada Buyer',
      shippingAddress: 'Testvej 1',
      shippingZip: '8000',
      shippingCity: 'Aarhus',
      subtotalDkk: BigInt(subtotal),
      discountDkk: 0n,
      shippingDkk: 0n,
      totalDkk: BigInt(opts.totalDkk ?? subtotal),
      discountCode: opts.discountCode ?? null,
      isAiGenerated: opts.isAiGenerated ?? false,
      shippedAt: opts.shippedAt ?? null,
      paidAt: opts.paidAt ?? null,
      ...(opts.createdAt ? { createdAt: opts.createdAt } : {}),
      items: {
        create: items.map((i) => ({
          productId: i.productId,
          productName: i.productName ?? 'Test product',
          unitPriceDkk: BigInt(i.unitPriceDkk ?? 10_000),
          quantity: BigInt(i.quantity),
        })),
      },
    },
    include: { items: true },
  });
}

/** A valid products.create body with a unique slug; `over` replaces or adds fields. */
export const productInput = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'Test frame',
  slug: `product-${uid()}`,
  description: 'A frame made by a test.',
  priceDkk: 10_000,
  stock: 1,
  ...over,
});

/** Creates a product through POST /api/v1/tools/products.create (key with products:write); returns `{id, slug}`. */
export async function createProduct(t: TestApp, key: string, over: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const res = await t.call('products.create', productInput(over), key);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

/** Creates or renames a category through categories.upsert (key with categories:write); returns `{id, slug, name}`. */
export async function createCategory(t: TestApp, key: string, slug: string, over: Record<string, unknown> = {}): Promise<{ id: string; slug: string; name: string }> {
  const res = await t.call('categories.upsert', { slug, name: `Category ${slug}`, ...over }, key);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

export type CartLine = { productSlug: string; quantity: number };

/** Creates a cart through cart.create (key with cart:write); returns the priced cart. */
export async function createCart<T extends { cartId: string } = { cartId: string }>(t: TestApp, key: string, items: CartLine[] = []): Promise<T> {
  const res = await t.call('cart.create', { items }, key);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

/** The buyer and shipping fields checkout.create_order requires. */
export const CHECKOUT_CONTACT = { email: 'Buyer@Example.com', shippingName: 'Ada Buyer', shippingAddress: 'Testvej 1', shippingZip: '8000', shippingCity: 'Aarhus' };
