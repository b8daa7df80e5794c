import type { Db } from '../../db/client.ts';
import type { OrderStatus } from '../../domain/order-transitions.ts';
import { priceOrder, type DiscountTerms } from '../../domain/pricing.ts';
import { loadSettings, pricingSettings } from '../../services/settings.ts';
import { demoProducts } from './catalog.ts';

export const DEMO_DISCOUNTS = [
  { code: 'WELCOME10', type: 'percent', value: 10, validUntil: null, usageLimit: null, active: true },
  { code: 'SUMMER200', type: 'fixed', value: 20_000, validUntil: new Date('2030-08-31T21:59:59Z'), usageLimit: 100, active: true },
  { code: 'ONCE50', type: 'fixed', value: 5_000, validUntil: null, usageLimit: 1, active: true },
  { code: 'VIP25', type: 'percent', value: 25, validUntil: null, usageLimit: null, active: false },
  { code: 'EXPIRED15', type: 'percent', value: 15, validUntil: new Date('2024-12-31T22:59:59Z'), usageLimit: null, active: true },
] as const;

type DemoOrder = {
  n: number;
  status: OrderStatus;
  daysAgo: number;
  email: string;
  name: string;
  city: string;
  /** Indexes into demoProducts() with quantities. */
  lines: [number, number][];
  code?: (typeof DEMO_DISCOUNTS)[number]['code'];
  agent?: boolean;
};

/** 12 orders over six weeks, in most statuses; some customers return (with differently cased emails). */
const DEMO_ORDERS: DemoOrder[] = [
  { n: 1, status: 'pending_payment', daysAgo: 0.2, email: 'mette@example.dk', name: 'Mette Hansen', city: 'Aarhus', lines: [[1, 1]], agent: true },
  { n: 2, status: 'pending_payment', daysAgo: 1.5, email: 'jonas@example.dk', name: 'Jonas Berg', city: 'Odense', lines: [[4, 2], [5, 1]], code: 'WELCOME10' },
  { n: 3, status: 'pending', daysAgo: 3, email: 'sofie@example.dk', name: 'Sofie Lund', city: 'Aalborg', lines: [[7, 1]] },
  { n: 4, status: 'paid', daysAgo: 4.5, email: 'Mette@Example.dk', name: 'Mette Hansen', city: 'Aarhus', lines: [[10, 1], [11, 1]], agent: true },
  { n: 5, status: 'paid', daysAgo: 6, email: 'anders@example.dk', name: 'Anders Holm', city: 'København', lines: [[2, 3]], code: 'SUMMER200' },
  { n: 6, status: 'paid', daysAgo: 9, email: 'freja@example.dk', name: 'Freja Møller', city: 'Esbjerg', lines: [[13, 1]] },
  { n: 7, status: 'processing', daysAgo: 12, email: 'jonas@example.dk', name: 'Jonas Berg', city: 'Odense', lines: [[16, 1], [17, 2]], agent: true },
  { n: 8, status: 'shipped', daysAgo: 16, email: 'ida@example.dk', name: 'Ida Nielsen', city: 'Vejle', lines: [[19, 1]], code: 'WELCOME10' },
  { n: 9, status: 'delivered', daysAgo: 21, email: 'sofie@example.dk', name: 'Sofie Lund', city: 'Aalborg', lines: [[22, 1], [23, 1]] },
  { n: 10, status: 'completed', daysAgo: 28, email: 'anders@example.dk', name: 'Anders Holm', city: 'København', lines: [[25, 2]] },
  { n: 11, status: 'cancelled', daysAgo: 34, email: 'lars@example.dk', name: 'Lars Dahl', city: 'Randers', lines: [[28, 1]], code: 'ONCE50', agent: true },
  { n: 12, status: 'refunded', daysAgo: 41, email: 'freja@example.dk', name: 'Freja Møller', city: 'Esbjerg', lines: [[31, 1]] },
];

const PAID: readonly OrderStatus[] = ['paid', 'processing', 'shipped', 'delivered', 'completed', 'refunded'];
const SHIPPED: readonly OrderStatus[] = ['shipped', 'delivered', 'completed'];
const HOUR = 3_600_000;

export const demoOrderId = (n: number) => `demo-order-${String(n).padStart(2, '0')}`;

/**
 * Discount codes and demo orders (run after seedCatalog). Codes are upserted by code (their terms reset to the demo
 * values, their usage left alone); orders have fixed ids and are only created when missing, so re-running changes
 * nothing and an order an admin moved on keeps its status. Amounts come from the same pricing function as checkout.
 */
export async function seedCommerce(db: Db): Promise<{ discountCodes: number; orders: number }> {
  for (const d of DEMO_DISCOUNTS) {
    const terms = { type: d.type, value: BigInt(d.value), validUntil: d.validUntil, usageLimit: d.usageLimit === null ? null : BigInt(d.usageLimit), active: d.active };
    // Cancelled orders gave their use back.
    const used = DEMO_ORDERS.filter((o) => o.code === d.code && o.status !== 'cancelled').length;
    await db.discountCode.upsert({ where: { code: d.code }, update: terms, create: { code: d.code, ...terms, usageCount: BigInt(used) } });
  }

  const settings = await loadSettings(db);
  const catalog = demoProducts();
  const products = await db.product.findMany({ where: { slug: { in: catalog.map((p) => p.slug) } } });
  const bySlug = new Map(products.map((p) => [p.slug, p]));

  for (const o of DEMO_ORDERS) {
    const id = demoOrderId(o.n);
    if (await db.order.findUnique({ where: { id }, select: { id: true } })) continue;
    const lines = o.lines.map(([index, quantity]) => {
      const product = bySlug.get(catalog[index].slug);
      if (!product) throw new Error(`Demo product ${catalog[index].slug} is missing; run the catalog seed first.`);
      return { product, quantity };
    });
    const discount = DEMO_DISCOUNTS.find((d) => d.code === o.code);
    const terms: DiscountTerms | null = discount ? { type: discount.type, value: discount.value } : null;
    const money = priceOrder(lines.map((l) => ({ unitPriceDkk: Number(l.product.priceDkk), quantity: l.quantity })), terms, pricingSettings(settings));
    const createdAt = new Date(Date.now() - o.daysAgo * 24 * HOUR);
    const later = (hours: number) => new Date(createdAt.getTime() + hours * HOUR);
    const [street, zip] = [`${o.name.split(' ')[1]}svej ${o.n}`, String(1000 + o.n * 611)];

    await db.order.create({
      data: {
        id,
        email: o.email,
        status: o.status,
        shippingName: o.name,
        shippingAddress: street,
        shippingZip: zip,
        shippingCity: o.city,
        subtotalDkk: BigInt(money.subtotalDkk),
        discountDkk: BigInt(money.discountDkk),
        shippingDkk: BigInt(money.shippingDkk),
        totalDkk: BigInt(money.totalDkk),
        vatOere: BigInt(money.vatOere),
        discountCode: o.code ?? null,
        isAiGenerated: o.agent ?? false,
        aiAgentSource: o.agent ? 'demo-shopping-agent' : null,
        channel: o.agent ? 'agent' : 'web',
        currency: settings.currency,
        paymentMethod: o.agent ? 'manual' : 'card',
        createdAt,
        paidAt: PAID.includes(o.status) ? later(0.1) : null,
        shippedAt: SHIPPED.includes(o.status) ? later(24) : null,
        carrier: SHIPPED.includes(o.status) ? 'PostNord' : null,
        trackingNumber: SHIPPED.includes(o.status) ? `DEMO${String(o.n).padStart(8, '0')}DK` : null,
        refundedAt: o.status === 'refunded' ? later(72) : null,
        items: {
          create: lines.map((l) => ({ productId: l.product.id, productName: l.product.name, unitPriceDkk: l.product.priceDkk, quantity: BigInt(l.quantity) })),
        },
      },
    });
  }
  return { discountCodes: DEMO_DISCOUNTS.length, orders: DEMO_ORDERS.length };
}
