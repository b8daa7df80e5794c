import type { Db } from '../../db/client.ts';
import type { ProductOptionInput } from '../../domain/variants.ts';
import { setOptions } from '../../services/variants.ts';

export const DEMO_CATEGORIES = [
  { slug: 'sunglasses', name: 'Sunglasses', description: 'UV400 sunglasses for every day.' },
  { slug: 'sport', name: 'Sport eyewear', description: 'Wraparound frames for running and cycling.' },
  { slug: 'reading', name: 'Reading glasses', description: 'Readers from +1.0 to +3.0.' },
  { slug: 'kids', name: 'Kids', description: 'Flexible frames for small faces.' },
  { slug: 'blue-light', name: 'Blue-light glasses', description: null },
  { slug: 'accessories', name: 'Accessories', description: 'Cases, cords and cleaning kits.' },
] as const;

const BRANDS = ['Nordlys', 'Havblik', 'Ray-Ban', 'Fjord', null] as const;
const FRAMES = ['black', 'tortoise', 'gold', 'clear', 'navy', 'red'] as const;
const LENSES = ['grey', 'green', 'brown', 'blue', 'mirror', 'clear'] as const;
const STYLES = ['Aviator', 'Wayfarer', 'Round', 'Cat-eye', 'Square', 'Shield'] as const;

/** 36 deterministic products spread over the categories; re-running updates them in place. */
export function demoProducts() {
  return Array.from({ length: 36 }, (_, i) => {
    const category = DEMO_CATEGORIES[i % DEMO_CATEGORIES.length];
    const style = STYLES[i % STYLES.length];
    const frame = FRAMES[(i * 5) % FRAMES.length];
    const lens = LENSES[(i * 7) % LENSES.length];
    const name = `${style} ${frame} ${category.name.split(' ')[0].toLowerCase()} ${i + 1}`;
    return {
      slug: `${style.toLowerCase()}-${frame}-${category.slug}-${i + 1}`,
      name: name[0].toUpperCase() + name.slice(1),
      description: `${style} frame in ${frame} with ${lens} lenses. Demo product number ${i + 1} of the ${category.name} range.`,
      brand: BRANDS[i % BRANDS.length],
      priceDkk: BigInt(29_900 + ((i * 7_919) % 150_000)),
      stock: BigInt(i % 9 === 0 ? 0 : (i * 13) % 60),
      featured: i % 7 === 0,
      frameColor: category.slug === 'accessories' ? null : frame,
      lensColor: category.slug === 'accessories' ? null : lens,
      images: [`https://images.example.com/products/${i + 1}.jpg`],
      answerSummary: `A ${style.toLowerCase()} ${category.name.toLowerCase()} model in ${frame}.`,
      categorySlug: category.slug,
    };
  });
}

/** Demo products sold in several variants (docs/catalog.md, "Variants"); every variant at the product's price. */
export const DEMO_OPTIONS: Readonly<Record<string, ProductOptionInput[]>> = {
  'aviator-black-sunglasses-7': [{ name: 'Lens colour', values: ['Grey', 'Brown', 'Green'] }],
  'wayfarer-red-sport-8': [{ name: 'Lens colour', values: ['Smoke', 'Mirror'] }, { name: 'Size', values: ['M', 'L'] }],
  'cat-eye-clear-kids-10': [{ name: 'Size', values: ['XS', 'S'] }],
};
/** Stock of each variant the demo options add (the first keeps the product's). */
const DEMO_VARIANT_STOCK = 4n;

const sameOptions = (a: readonly ProductOptionInput[], b: readonly ProductOptionInput[]) => JSON.stringify(a) === JSON.stringify(b);

export async function seedCatalog(db: Db): Promise<{ categories: number; products: number }> {
  const ids = new Map<string, string>();
  for (const c of DEMO_CATEGORIES) {
    const row = await db.category.upsert({ where: { slug: c.slug }, update: { name: c.name, description: c.description }, create: c });
    ids.set(c.slug, row.id);
  }
  const products = demoProducts();
  for (const { categorySlug, ...p } of products) {
    const data = { ...p, categoryId: ids.get(categorySlug)!, deletedAt: null };
    const demoOptions = DEMO_OPTIONS[p.slug] ?? [];
    const existing = await db.product.findUnique({
      where: { slug: p.slug },
      select: { deletedAt: true, options: { orderBy: { position: 'asc' }, select: { name: true, values: true } }, _count: { select: { variants: { where: { deletedAt: null } } } } },
    });
    // Live again first: the steps below work on live products.
    if (existing && existing.deletedAt !== null) await db.product.update({ where: { slug: p.slug }, data: { deletedAt: null } });
    if (existing && existing._count.variants > 1 && sameOptions(existing.options, demoOptions)) {
      // Already in its demo options: the product's price and stock are its variants', so the price is reset on them.
      const { priceDkk, stock: _stock, ...fields } = data;
      await db.product.update({ where: { slug: p.slug }, data: fields });
      await db.productVariant.updateMany({ where: { product: { slug: p.slug }, deletedAt: null }, data: { priceDkk } });
      continue;
    }
    // A demo product given other options since goes back to one variant first, so its price and stock can be reset.
    if (existing && (existing.options.length > 0 || existing._count.variants > 1)) await setOptions(db, p.slug, []);
    await db.product.upsert({ where: { slug: p.slug }, update: data, create: data });
    if (demoOptions.length > 0) {
      const { created } = await setOptions(db, p.slug, demoOptions);
      await db.productVariant.updateMany({ where: { id: { in: created.map((v) => v.id) } }, data: { stock: DEMO_VARIANT_STOCK } });
    }
  }
  return { categories: DEMO_CATEGORIES.length, products: products.length };
}
