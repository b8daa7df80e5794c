import type { Db } from '../../db/client.ts';
import type { ProductOptionInput } from '../../domain/variants.ts';
import { setOptions } from '../../services/variants.ts';
import { bundledImagePath } from '../../assets/images.ts';

/** In the order the home page shows them; each with a line that says what it holds. */
export const DEMO_CATEGORIES = [
  { slug: 'sunglasses', name: 'Sunglasses', description: 'UV400 sunglasses for every day, from aviators to cat-eyes.' },
  { slug: 'sport', name: 'Sport eyewear', description: 'Wraparound frames for running, cycling and the sea.' },
  { slug: 'reading', name: 'Reading glasses', description: 'Readers from +1.0 to +3.0 that you will not mind being seen in.' },
  { slug: 'kids', name: 'Kids', description: 'Flexible frames for small faces, with full UV protection.' },
  { slug: 'blue-light', name: 'Screen glasses', description: 'Clear lenses with a blue-light filter for long days at a screen.' },
  { slug: 'accessories', name: 'Accessories', description: 'Cases, cords and cleaning kits that keep glasses like new.' },
] as const;

export type DemoArt = 'aviator' | 'wayfarer' | 'round' | 'cateye' | 'square' | 'browline' | 'shield' | 'wrap' | 'case' | 'cord' | 'kit' | 'cloth';
export type DemoColour = 'black' | 'gold' | 'tortoise' | 'red' | 'navy' | 'white';
export type DemoLens = 'grey' | 'green' | 'brown' | 'blue' | 'mirror' | 'clear';

/**
 * The demo catalogue, six products per category in the order category pages list them (newest first: the seed
 * dates them so). `art` and the colours say what its two pictures show (drawn by scripts/draw-demo-images.ts).
 */
export const DEMO_PRODUCT_ROWS: readonly {
  slug: string; name: string; brand: string; art: DemoArt; frame: DemoColour; lens: DemoLens | null; priceKr: number; stock: number; featured: boolean;
  categorySlug: (typeof DEMO_CATEGORIES)[number]['slug']; description: string;
}[] = [
  { slug: 'havblik-aviator', name: "Havblik Aviator", brand: 'Havblik', art: 'aviator', frame: 'gold', lens: 'green', priceKr: 1299, stock: 24, featured: true, categorySlug: 'sunglasses',
    description: "A classic aviator with a thin gold metal frame and green glass lenses. Adjustable nose pads keep it comfortable all day." },
  { slug: 'nordlys-wayfarer', name: "Nordlys Wayfarer", brand: 'Nordlys', art: 'wayfarer', frame: 'black', lens: 'grey', priceKr: 999, stock: 31, featured: true, categorySlug: 'sunglasses',
    description: "A bold acetate wayfarer in black with grey polarised lenses that cut glare from water and wet roads." },
  { slug: 'skagen-round', name: "Skagen Round", brand: 'Fjord', art: 'round', frame: 'tortoise', lens: 'brown', priceKr: 899, stock: 18, featured: false, categorySlug: 'sunglasses',
    description: "Round tortoiseshell frames with warm brown lenses, inspired by summer light on the Skagen beaches." },
  { slug: 'vesterhav-cat-eye', name: "Vesterhav Cat-eye", brand: 'Havblik', art: 'cateye', frame: 'red', lens: 'brown', priceKr: 1099, stock: 12, featured: false, categorySlug: 'sunglasses',
    description: "A softly raised cat-eye in deep red acetate. The brown lenses give good contrast on bright days." },
  { slug: 'klitten-square', name: "Klitten Square", brand: 'Nordlys', art: 'square', frame: 'navy', lens: 'grey', priceKr: 949, stock: 0, featured: false, categorySlug: 'sunglasses',
    description: "A square navy frame with flat grey lenses. Sturdy five-barrel hinges make it last for years." },
  { slug: 'lyngby-clubmaster', name: "Lyngby Clubmaster", brand: 'Fjord', art: 'browline', frame: 'black', lens: 'green', priceKr: 1199, stock: 9, featured: false, categorySlug: 'sunglasses',
    description: "A browline frame with a black acetate top and a gold metal rim around green lenses." },
  { slug: 'fjord-shield', name: "Fjord Shield", brand: 'Fjord', art: 'shield', frame: 'black', lens: 'mirror', priceKr: 1499, stock: 15, featured: true, categorySlug: 'sport',
    description: "A one-piece shield lens with a blue mirror coating and a wide field of view for cycling and running." },
  { slug: 'tempo-wrap', name: "Tempo Wrap", brand: 'Nordlys', art: 'wrap', frame: 'red', lens: 'mirror', priceKr: 1199, stock: 22, featured: false, categorySlug: 'sport',
    description: "A light wraparound frame with rubber temple tips that stay put when you move fast." },
  { slug: 'boelge-sport', name: "Bølge Sport", brand: 'Havblik', art: 'wrap', frame: 'navy', lens: 'blue', priceKr: 1099, stock: 14, featured: false, categorySlug: 'sport',
    description: "Floating polarised sport glasses for sailing and paddling, with a strap included." },
  { slug: 'stormvej-shield', name: "Stormvej Shield", brand: 'Fjord', art: 'shield', frame: 'white', lens: 'brown', priceKr: 1399, stock: 6, featured: false, categorySlug: 'sport',
    description: "A white shield with contrast-enhancing brown lenses for trail running in changing light." },
  { slug: 'kilometer-wrap', name: "Kilometer Wrap", brand: 'Nordlys', art: 'wrap', frame: 'black', lens: 'grey', priceKr: 899, stock: 0, featured: false, categorySlug: 'sport',
    description: "An everyday wraparound in matte black with shatterproof grey lenses." },
  { slug: 'hoejdepunkt-glacier', name: "Højdepunkt Glacier", brand: 'Havblik', art: 'round', frame: 'black', lens: 'mirror', priceKr: 1599, stock: 5, featured: false, categorySlug: 'sport',
    description: "Mountain glasses with side shields and dark mirrored lenses for snow and high altitude." },
  { slug: 'laes-round-reader', name: "Læs Round Reader", brand: 'Fjord', art: 'round', frame: 'tortoise', lens: 'clear', priceKr: 349, stock: 40, featured: true, categorySlug: 'reading',
    description: "A light round reader in tortoiseshell, available from +1.0 to +3.0." },
  { slug: 'bog-rectangle-reader', name: "Bog Rectangle Reader", brand: 'Nordlys', art: 'square', frame: 'black', lens: 'clear', priceKr: 299, stock: 35, featured: false, categorySlug: 'reading',
    description: "A slim rectangular reader in black that folds into a pocket-sized case." },
  { slug: 'avis-half-rim-reader', name: "Avis Half-rim Reader", brand: 'Fjord', art: 'browline', frame: 'gold', lens: 'clear', priceKr: 399, stock: 20, featured: false, categorySlug: 'reading',
    description: "A half-rim reader with a gold brow, so you can look over the lenses at a distance." },
  { slug: 'roman-cat-eye-reader', name: "Roman Cat-eye Reader", brand: 'Havblik', art: 'cateye', frame: 'red', lens: 'clear', priceKr: 349, stock: 16, featured: false, categorySlug: 'reading',
    description: "A cat-eye reader in red acetate with spring hinges." },
  { slug: 'lup-folding-reader', name: "Lup Folding Reader", brand: 'Nordlys', art: 'round', frame: 'navy', lens: 'clear', priceKr: 449, stock: 8, featured: false, categorySlug: 'reading',
    description: "A folding reader in navy that fits in a slim metal case on your key ring." },
  { slug: 'kapitel-wayfarer-reader', name: "Kapitel Wayfarer Reader", brand: 'Fjord', art: 'wayfarer', frame: 'tortoise', lens: 'clear', priceKr: 349, stock: 0, featured: false, categorySlug: 'reading',
    description: "A wayfarer-shaped reader in tortoiseshell acetate." },
  { slug: 'mini-aviator', name: "Mini Aviator", brand: 'Havblik', art: 'aviator', frame: 'gold', lens: 'grey', priceKr: 399, stock: 25, featured: true, categorySlug: 'kids',
    description: "A small aviator for children from four years, with bendable temples and grey UV400 lenses." },
  { slug: 'krabbe-round', name: "Krabbe Round", brand: 'Nordlys', art: 'round', frame: 'red', lens: 'grey', priceKr: 349, stock: 30, featured: false, categorySlug: 'kids',
    description: "Round, flexible frames in red that survive being sat on." },
  { slug: 'delfin-sport', name: "Delfin Sport", brand: 'Fjord', art: 'wrap', frame: 'navy', lens: 'blue', priceKr: 449, stock: 12, featured: false, categorySlug: 'kids',
    description: "A wraparound for active kids, with a soft strap and blue mirrored lenses." },
  { slug: 'soestjerne-cat-eye', name: "Søstjerne Cat-eye", brand: 'Havblik', art: 'cateye', frame: 'white', lens: 'grey', priceKr: 349, stock: 10, featured: false, categorySlug: 'kids',
    description: "A playful white cat-eye with grey lenses for small faces." },
  { slug: 'mini-wayfarer', name: "Mini Wayfarer", brand: 'Nordlys', art: 'wayfarer', frame: 'black', lens: 'green', priceKr: 349, stock: 18, featured: false, categorySlug: 'kids',
    description: "A small wayfarer in black with green lenses and rounded edges." },
  { slug: 'tumle-square', name: "Tumle Square", brand: 'Fjord', art: 'square', frame: 'navy', lens: 'grey', priceKr: 299, stock: 0, featured: false, categorySlug: 'kids',
    description: "A soft square frame in navy rubber for the youngest children." },
  { slug: 'skaerm-round', name: "Skærm Round", brand: 'Nordlys', art: 'round', frame: 'black', lens: 'clear', priceKr: 549, stock: 28, featured: true, categorySlug: 'blue-light',
    description: "Round screen glasses with a clear blue-light filter and an anti-reflective coating." },
  { slug: 'pixel-square', name: "Pixel Square", brand: 'Fjord', art: 'square', frame: 'tortoise', lens: 'clear', priceKr: 599, stock: 22, featured: false, categorySlug: 'blue-light',
    description: "Square tortoiseshell screen glasses that suit long days at the desk." },
  { slug: 'kode-wayfarer', name: "Kode Wayfarer", brand: 'Havblik', art: 'wayfarer', frame: 'navy', lens: 'clear', priceKr: 549, stock: 15, featured: false, categorySlug: 'blue-light',
    description: "A navy wayfarer with a blue-light filter and light, flexible temples." },
  { slug: 'nattevagt-aviator', name: "Nattevagt Aviator", brand: 'Nordlys', art: 'aviator', frame: 'gold', lens: 'clear', priceKr: 649, stock: 9, featured: false, categorySlug: 'blue-light',
    description: "A gold aviator with a blue-light filter for evening screen work." },
  { slug: 'studie-cat-eye', name: "Studie Cat-eye", brand: 'Fjord', art: 'cateye', frame: 'red', lens: 'clear', priceKr: 549, stock: 12, featured: false, categorySlug: 'blue-light',
    description: "A red cat-eye with clear blue-light lenses and spring hinges." },
  { slug: 'kontor-browline', name: "Kontor Browline", brand: 'Havblik', art: 'browline', frame: 'black', lens: 'clear', priceKr: 599, stock: 0, featured: false, categorySlug: 'blue-light',
    description: "A browline frame with blue-light lenses for the office." },
  { slug: 'hard-case-leather', name: "Hard Case in Leather", brand: 'Nordlys', art: 'case', frame: 'tortoise', lens: null, priceKr: 249, stock: 50, featured: false, categorySlug: 'accessories',
    description: "A hard leather case with a soft lining that protects one pair of glasses." },
  { slug: 'cotton-glasses-cord', name: "Cotton Glasses Cord", brand: 'Fjord', art: 'cord', frame: 'navy', lens: null, priceKr: 99, stock: 80, featured: false, categorySlug: 'accessories',
    description: "A braided cotton cord that keeps your glasses around your neck." },
  { slug: 'lens-cleaning-kit', name: "Lens Cleaning Kit", brand: 'Havblik', art: 'kit', frame: 'navy', lens: null, priceKr: 149, stock: 60, featured: true, categorySlug: 'accessories',
    description: "A spray bottle, a microfibre cloth and a small screwdriver in a zip pouch." },
  { slug: 'microfibre-cloths', name: "Microfibre Cloths, Pack of Three", brand: 'Nordlys', art: 'cloth', frame: 'red', lens: null, priceKr: 79, stock: 100, featured: false, categorySlug: 'accessories',
    description: "Three soft microfibre cloths that clean without scratching." },
  { slug: 'folding-case', name: "Folding Case", brand: 'Fjord', art: 'case', frame: 'black', lens: null, priceKr: 199, stock: 40, featured: false, categorySlug: 'accessories',
    description: "A flat folding case that opens into a triangle and takes up no room in a bag." },
  { slug: 'sports-strap', name: "Sports Strap", brand: 'Havblik', art: 'cord', frame: 'black', lens: null, priceKr: 129, stock: 0, featured: false, categorySlug: 'accessories',
    description: "An adjustable neoprene strap that holds sport glasses in place." },
];

const LENS_WORDS: Record<DemoLens, string> = { grey: 'grey', green: 'green', brown: 'brown', blue: 'blue', mirror: 'mirrored', clear: 'clear' };
const FRAME_WORDS: Record<DemoColour, string> = { black: 'black', gold: 'gold', tortoise: 'tortoiseshell', red: 'red', navy: 'navy', white: 'white' };

/** The demo products as rows to upsert; re-running updates them in place. Featured products are always in stock. */
export function demoProducts() {
  const created = Date.parse('2026-11-01T09:00:00Z');
  return DEMO_PRODUCT_ROWS.map((p, i) => ({
    slug: p.slug,
    name: p.name,
    description: p.description,
    brand: p.brand,
    priceDkk: BigInt(p.priceKr * 100),
    stock: BigInt(p.stock),
    featured: p.featured,
    frameColor: p.lens === null ? null : FRAME_WORDS[p.frame],
    lensColor: p.lens === null ? null : LENS_WORDS[p.lens],
    images: [bundledImagePath(`${p.slug}-1.svg`), bundledImagePath(`${p.slug}-2.svg`)],
    answerSummary: p.lens === null ? `${p.name}: ${p.description.split('. ')[0]!.replace(/\.$/, '')}.` : `${p.name} has a ${FRAME_WORDS[p.frame]} frame with ${LENS_WORDS[p.lens]} lenses.`,
    categorySlug: p.categorySlug,
    // Category pages list the newest first: the first product of each category is dated last.
    createdAt: new Date(created + (DEMO_PRODUCT_ROWS.length - i) * 3_600_000),
  }));
}

/** Demo products sold in several variants (docs/catalog.md, "Variants"); every variant at the product's price. */
export const DEMO_OPTIONS: Readonly<Record<string, ProductOptionInput[]>> = {
  'nordlys-wayfarer': [{ name: 'Lens colour', values: ['Grey', 'Brown', 'Green'] }],
  'tempo-wrap': [{ name: 'Lens colour', values: ['Smoke', 'Mirror'] }, { name: 'Size', values: ['M', 'L'] }],
  'laes-round-reader': [{ name: 'Strength', values: ['+1.0', '+1.5', '+2.0', '+2.5', '+3.0'] }],
  'mini-aviator': [{ name: 'Size', values: ['XS', 'S'] }],
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
