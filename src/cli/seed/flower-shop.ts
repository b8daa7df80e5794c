// `seed --ucp-flower-shop <folder>`: the UCP conformance suite's flower shop (its CSV files) loaded into this
// service (docs/agentic-checkout.md, "Conformance"), so the suite runs against a fresh database. Each product becomes
// a product with one variant whose id is the shop's product id: UCP line items name variants, and the suite names
// the flower shop's ids. Idempotent: a second run resets the same rows to the files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../../db/client.ts';
import { normalizeCode } from '../../services/discounts.ts';
import { loadSettings } from '../../services/settings.ts';

type Row = Record<string, string>;

/** The rows of a simple CSV file (the flower shop's have no quoted commas in the columns read here). */
function readCsv(folder: string, name: string): Row[] {
  const [head, ...lines] = readFileSync(path.join(folder, name), 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const columns = head.split(',').map((c) => c.trim());
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [columns[i], v.trim()])));
}

const slugOf = (id: string) => id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export async function seedFlowerShop(db: Db, folder: string): Promise<Record<string, number>> {
  const stock = new Map(readCsv(folder, 'inventory.csv').map((r) => [r.product_id, BigInt(r.quantity)]));
  const products = readCsv(folder, 'products.csv');
  for (const p of products) {
    const slug = slugOf(p.id);
    const price = BigInt(p.price);
    const units = stock.get(p.id) ?? 0n;
    const images = /^https?:\/\//.test(p.image_url ?? '') ? [p.image_url] : [];
    const existing = await db.productVariant.findUnique({ where: { id: p.id }, select: { productId: true } });
    if (existing) {
      await db.product.update({ where: { id: existing.productId }, data: { name: p.title, images, deletedAt: null } });
      await db.productVariant.update({ where: { id: p.id }, data: { priceDkk: price, stock: units, sku: p.id, deletedAt: null } });
      continue;
    }
    await db.$transaction(async (tx) => {
      const product = await tx.product.create({ data: { slug, name: p.title, description: `${p.title} from the flower shop.`, priceDkk: price, stock: units, images } });
      // The insert's trigger gave the product its default variant; it takes the flower shop's id.
      await tx.$executeRaw`UPDATE "ProductVariant" SET id = ${p.id}, sku = ${p.id} WHERE "productId" = ${product.id}`;
    });
  }
  const discounts = readCsv(folder, 'discounts.csv');
  for (const d of discounts) {
    const code = normalizeCode(d.code);
    const data = { type: d.type === 'percentage' ? ('percent' as const) : ('fixed' as const), value: BigInt(d.value), active: true, validUntil: null, usageLimit: null };
    await db.discountCode.upsert({ where: { code }, update: data, create: { code, ...data } });
  }
  // One shipping option at the standard rate; free from the order value of its free-shipping promotion, if any.
  const rates = readCsv(folder, 'shipping_rates.csv');
  const standard = rates.find((r) => r.service_level === 'standard' && r.country_code === 'default') ?? rates[0];
  const freeFrom = readCsv(folder, 'promotions.csv').find((r) => r.type === 'free_shipping' && r.min_subtotal)?.min_subtotal;
  await loadSettings(db);
  await db.shopSettings.update({
    where: { id: 1 },
    data: {
      shopName: 'Flower Shop', currency: 'USD', language: 'en', vatRateBasisPoints: 0,
      shippingFeeDkk: BigInt(standard?.price ?? 0), freeShippingThresholdDkk: freeFrom ? BigInt(freeFrom) : null,
    },
  });
  return { products: products.length, discounts: discounts.length };
}
