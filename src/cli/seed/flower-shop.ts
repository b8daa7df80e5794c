// `seed --ucp-flower-shop <folder>`: the UCP conformance suite's flower shop (its CSV files, and the JSON inputs the
// suite reads beside them) loaded into this service (docs/agentic-checkout.md, "Conformance"), so the suite runs
// against a fresh database (its known customers' addresses in the shop's address book). Each product becomes a product with one variant whose id is the shop's product id: UCP
// line items name variants, and the suite names the flower shop's ids. Idempotent: a second run resets the same rows
// to the files.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { SessionAddress } from '../../domain/checkout-session.ts';
import { bookEmail, fingerprintOf } from '../../services/buyer-addresses.ts';
import { normalizeCode } from '../../services/discounts.ts';
import { loadSettings } from '../../services/settings.ts';

type Row = Record<string, string>;

/**
 * The fields of one CSV line: commas separate; a field that starts with a double quote runs to the closing one and
 * may hold commas and doubled quotes (RFC 4180); a quote inside an unquoted field is a character (`["a"]`).
 */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') field += line[++i];
    else if (quoted && c === '"') quoted = false;
    else if (!quoted && c === '"' && field.trim() === '') quoted = true;
    else if (c === ',' && !quoted) {
      fields.push(field.trim());
      field = '';
    } else field += c;
  }
  return [...fields, field.trim()];
}

/** The rows of a CSV file of the folder (none when the file is absent). */
function readCsv(folder: string, name: string): Row[] {
  const file = path.join(folder, name);
  if (!existsSync(file)) return [];
  const [head, ...lines] = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const columns = csvFields(head);
  return lines.map((line) => Object.fromEntries(csvFields(line).map((v, i) => [columns[i], v])));
}

/** A JSON file of the folder, checked against what this seed reads of it (null when the file is absent). */
function readJson<T extends z.ZodType>(folder: string, name: string, schema: T): z.infer<T> | null {
  const file = path.join(folder, name);
  if (!existsSync(file)) return null;
  const parsed = schema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new AppError('invalid_request', `${name}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** What the suite expects of the shop (conformance_input.json): item prices, an item out of stock, one that does not exist. */
const ConformanceInput = z.looseObject({
  items: z.array(z.looseObject({ id: z.string().min(1), price: z.number().int().min(0).optional() })).optional(),
  out_of_stock_item: z.looseObject({ id: z.string().min(1) }).optional(),
  non_existent_item: z.looseObject({ id: z.string().min(1) }).optional(),
});

/** The discount codes the suite's fixtures use (test_fixtures.json) and what each takes off. */
const TestFixtures = z.looseObject({
  test_fixtures: z.looseObject({
    valid_discount_code: z.string().min(1).optional(),
    expected_discount_percentage: z.number().positive().optional(),
    valid_discount_code_2: z.string().min(1).optional(),
    expected_discount_percentage_2: z.number().positive().optional(),
    valid_fixed_discount_code: z.string().min(1).optional(),
    expected_fixed_discount_reduction: z.number().positive().optional(),
  }).optional(),
});

const slugOf = (id: string) => id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** A promotion's item list: a JSON array (`["bouquet_roses"]`) or ids separated by spaces or semicolons. */
function itemIdsOf(value: string | undefined): string[] {
  const text = value?.trim() ?? '';
  if (text === '') return [];
  if (text.startsWith('[')) return z.array(z.string()).parse(JSON.parse(text));
  return text.split(/[\s;]+/).filter(Boolean);
}

async function seedProducts(db: Db, folder: string, input: z.infer<typeof ConformanceInput> | null): Promise<number> {
  const stock = new Map(readCsv(folder, 'inventory.csv').map((r) => [r.product_id, BigInt(r.quantity)]));
  // The suite's own expectations win over the CSV files where both speak of an item.
  const prices = new Map((input?.items ?? []).flatMap((i) => (i.price === undefined ? [] : [[i.id, BigInt(i.price)] as const])));
  if (input?.out_of_stock_item) stock.set(input.out_of_stock_item.id, 0n);
  const products = readCsv(folder, 'products.csv');
  for (const p of products) {
    const slug = slugOf(p.id);
    const price = prices.get(p.id) ?? BigInt(p.price);
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
  // The item the suite names as not existing must not be sold here, whatever an earlier seed left.
  const missing = input?.non_existent_item?.id;
  if (missing) await db.productVariant.updateMany({ where: { id: missing, deletedAt: null }, data: { deletedAt: new Date() } });
  return products.length;
}

async function seedDiscounts(db: Db, folder: string, fixtures: z.infer<typeof TestFixtures> | null): Promise<number> {
  const codes = new Map<string, { type: 'percent' | 'fixed'; value: bigint }>();
  for (const d of readCsv(folder, 'discounts.csv')) codes.set(normalizeCode(d.code), { type: d.type === 'percentage' ? 'percent' : 'fixed', value: BigInt(d.value) });
  // A code the fixtures use but the CSV file lacks is made from the reduction the fixtures expect of it.
  const f = fixtures?.test_fixtures;
  const wanted: Array<[string | undefined, 'percent' | 'fixed', number | undefined]> = [
    [f?.valid_discount_code, 'percent', f?.expected_discount_percentage],
    [f?.valid_discount_code_2, 'percent', f?.expected_discount_percentage_2],
    [f?.valid_fixed_discount_code, 'fixed', f?.expected_fixed_discount_reduction === undefined ? undefined : f.expected_fixed_discount_reduction * 100],
  ];
  for (const [code, type, value] of wanted) {
    if (code && value !== undefined && !codes.has(normalizeCode(code))) codes.set(normalizeCode(code), { type, value: BigInt(Math.round(value)) });
  }
  for (const [code, terms] of codes) {
    const data = { ...terms, active: true, validUntil: null, usageLimit: null };
    await db.discountCode.upsert({ where: { code }, update: data, create: { code, ...data } });
  }
  return codes.size;
}

/**
 * The shop's shipping rates, each per service level and country (`default`: every country), and its free-shipping
 * promotions, which make the standard-level rates free from a subtotal or for orders holding certain items.
 */
async function seedShipping(db: Db, folder: string): Promise<number> {
  const rates = readCsv(folder, 'shipping_rates.csv');
  const promotions = readCsv(folder, 'promotions.csv').filter((p) => p.type === 'free_shipping');
  const thresholds = promotions.flatMap((p) => (p.min_subtotal ? [BigInt(p.min_subtotal)] : []));
  const freeFromDkk = thresholds.length === 0 ? null : thresholds.reduce((a, b) => (b < a ? b : a));
  const freeForVariantIds = [...new Set(promotions.flatMap((p) => itemIdsOf(p.eligible_item_ids)))];
  await db.$transaction(async (tx) => {
    await tx.shippingRate.deleteMany();
    await tx.shippingRate.createMany({
      data: rates.map((r) => ({
        id: r.id, title: r.title, serviceLevel: r.service_level, countryCode: r.country_code === 'default' ? null : r.country_code.toUpperCase(), priceDkk: BigInt(r.price),
        ...(r.service_level === 'standard' ? { freeFromDkk, freeForVariantIds } : {}),
      })),
    });
  });
  // The shop's own checkout (checkout.create_order, the storefront) ships at the standard rate for every country,
  // free from the promotions' subtotal.
  const standard = rates.find((r) => r.service_level === 'standard' && r.country_code === 'default') ?? rates[0];
  await loadSettings(db);
  await db.shopSettings.update({
    where: { id: 1 },
    data: {
      shopName: 'Flower Shop', currency: 'USD', language: 'en', vatRateBasisPoints: 0,
      shippingFeeDkk: BigInt(standard?.price ?? 0), freeShippingThresholdDkk: freeFromDkk,
    },
  });
  return rates.length;
}

/**
 * The known customers' saved addresses (customers.csv, addresses.csv) in the shop's address book, under the files'
 * ids, with the customer's name split into first and last (docs/agentic-checkout.md, reading 15).
 */
async function seedAddresses(db: Db, folder: string): Promise<number> {
  const customers = new Map(readCsv(folder, 'customers.csv').map((c) => [c.id, c]));
  const rows = readCsv(folder, 'addresses.csv').flatMap((a) => {
    const customer = customers.get(a.customer_id);
    return customer?.email ? [{ a, customer }] : [];
  });
  for (const { a, customer } of rows) {
    const [firstName, ...rest] = (customer.name ?? '').trim().split(/\s+/);
    const address: SessionAddress = {
      ...(firstName ? { firstName } : {}), ...(rest.length > 0 ? { lastName: rest.join(' ') } : {}),
      streetAddress: a.street_address, locality: a.city, region: a.state, postalCode: a.postal_code, country: a.country,
    };
    const data = { email: bookEmail(customer.email), address, fingerprint: fingerprintOf(address) };
    // An entry of the same place saved meanwhile under another id gives way to the file's.
    await db.buyerAddress.deleteMany({ where: { email: data.email, fingerprint: data.fingerprint, id: { not: a.id } } });
    await db.buyerAddress.upsert({ where: { id: a.id }, update: data, create: { id: a.id, ...data } });
  }
  return rows.length;
}

export async function seedFlowerShop(db: Db, folder: string): Promise<Record<string, number>> {
  const input = readJson(folder, 'conformance_input.json', ConformanceInput);
  const fixtures = readJson(folder, 'test_fixtures.json', TestFixtures);
  const products = await seedProducts(db, folder, input);
  const discounts = await seedDiscounts(db, folder, fixtures);
  const shippingRates = await seedShipping(db, folder);
  const addresses = await seedAddresses(db, folder);
  return { products, discounts, shippingRates, addresses };
}
