// The product tools over HTTP on real PostgreSQL (docs/contract.md, docs/architecture.md; docs/robustness.md rows
// 7–16, 25, 29): every response is checked together with what the database holds afterwards, and every
// failed write is shown to leave the database (products and audit log) exactly as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey } from '../../src/auth/key-format.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createCategory, createProduct, productInput } from '../helpers/factories.ts';
import { catalogWriteAssertions } from '../helpers/catalog-writes.ts';
import { expectProblem } from '../helpers/problem.ts';

const MAX = 9007199254740991;
// Issue 27 (variants) added variantCount and maxPriceDkk to summaries, options and variants to the detail.
const SUMMARY_KEYS = ['brand', 'categoryName', 'categorySlug', 'featured', 'firstImage', 'frameColor', 'id', 'lensColor', 'maxPriceDkk', 'name', 'priceDkk', 'slug', 'stock', 'variantCount'];
const DETAIL_KEYS = ['brand', 'category', 'createdAt', 'description', 'featured', 'frameColor', 'id', 'images', 'lensColor', 'name', 'options', 'priceDkk', 'slug', 'stock', 'variants'];

let t: TestApp;
let key: string;
let keyId: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['products:write', 'categories:write']);
  keyId = parseKey(key)!.id;
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
const uniqueSlug = (prefix = 'p') => `${prefix}-${++seq}-${Date.now().toString(36)}`;
const valid = (over: Record<string, unknown> = {}) =>
  productInput({ name: 'Aviator Classic', slug: uniqueSlug(), description: 'A classic aviator frame in gold.', priceDkk: 129_900, stock: 5, ...over });

const call = (name: string, body: unknown) => t.call(name, body, key);
const search = async (body: Record<string, unknown>) => {
  const res = await t.call('products.search', body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as Record<string, unknown>[];
};
const slugs = (rows: Record<string, unknown>[], prefix?: string) =>
  rows.map((r) => r.slug as string).filter((s) => prefix === undefined || s.startsWith(prefix));

const create = (over: Record<string, unknown> = {}) => createProduct(t, key, valid(over));

const row = (slug: string) => t.db.product.findUnique({ where: { slug } });
const { snapshot, auditCount, latestAudit, expectRefused, expectOneAuditEntry } = catalogWriteAssertions(
  () => t.db,
  call,
  'product',
  () => keyId,
);

// ---------------------------------------------------------------------------------------------------------------

describe('products.search', () => {
  // Fixture products live in their own categories and carry the slug prefix "sx-", so assertions hold however many
  // products the other tests of this file create.
  beforeAll(async () => {
    for (const [slug, name] of [['sx-cat', 'Search fixture'], ['sx-other', 'Other fixture'], ['sx-bulk', 'Bulk fixture']]) await createCategory(t, key, slug, { name });
    const fixture = [
      { slug: 'sx-aviator', name: 'Aviator Gold', brand: 'Nordlys', description: 'Pilot frame with polarised lenses.', priceDkk: 100_000, stock: 5, featured: true, frameColor: 'gold', lensColor: 'green', images: ['https://img.example.com/a1.jpg', 'https://img.example.com/a2.jpg'], categorySlug: 'sx-cat' },
      { slug: 'sx-wayfarer', name: 'Wayfarer Black', brand: 'Havblik', description: 'Timeless frame with 100% UV protection.', priceDkk: 50_000, stock: 0, featured: false, frameColor: 'black', lensColor: 'grey', categorySlug: 'sx-cat' },
      { slug: 'sx-round', name: 'Round_Reader', brand: null, description: 'Reading glasses, a back\\slash in the text.', priceDkk: 25_000, stock: 12, frameColor: 'tortoise', lensColor: 'clear', categorySlug: 'sx-other' },
      { slug: 'sx-quote', name: 'Quoted Shades', brand: 'ACME', description: "Contains ' OR 1=1 -- literally, for the test.", priceDkk: MAX, stock: 1, featured: true, frameColor: 'GOLD', lensColor: null, categorySlug: 'sx-other' },
      { slug: 'sx-deleted', name: 'Aviator Ghost', brand: 'Nordlys', description: 'Deleted aviator, 100% hidden_ \\ OR 1=1 --', priceDkk: 60_000, stock: 3, featured: true, frameColor: 'gold', lensColor: 'green', categorySlug: 'sx-cat' },
    ];
    for (const p of fixture) {
      expect((await call('products.create', p)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 5)); // distinct createdAt, so newest-first is observable
    }
    expect((await call('products.delete', { slug: 'sx-deleted', confirm: true })).statusCode).toBe(200);
    const bulk = await t.db.category.findUniqueOrThrow({ where: { slug: 'sx-bulk' } });
    const at = new Date('2020-01-01T00:00:00.000Z');
    await t.db.product.createMany({
      data: Array.from({ length: 25 }, (_, i) => ({
        slug: `sx-bulk-${String(i).padStart(2, '0')}`, name: `Bulk ${i}`, description: 'Bulk product for limits.',
        priceDkk: 1000n, stock: 1n, categoryId: bulk.id, createdAt: at, // identical createdAt: order falls to the id
      })),
    });
  });

  it('POST /api/v1/tools/products.search returns summary items with exactly the declared fields', async () => {
    const [item] = await search({ q: 'Aviator Gold' });
    expect(Object.keys(item).sort()).toEqual(SUMMARY_KEYS);
    const db = await row('sx-aviator');
    expect(item).toEqual({
      id: db!.id, slug: 'sx-aviator', name: 'Aviator Gold', brand: 'Nordlys', priceDkk: 100_000, stock: 5, featured: true,
      frameColor: 'gold', lensColor: 'green', categorySlug: 'sx-cat', categoryName: 'Search fixture', firstImage: 'https://img.example.com/a1.jpg',
      variantCount: 1, maxPriceDkk: 100_000,
    });
    const [noImage] = await search({ q: 'Wayfarer Black' });
    expect(noImage).toMatchObject({ slug: 'sx-wayfarer', firstImage: null, stock: 0 });
    const [nullBrand] = await search({ q: 'Round_Reader' });
    expect(nullBrand).toMatchObject({ brand: null, lensColor: 'clear' });
  });

  it('q matches name, brand and description case-insensitively; soft-deleted products never match', async () => {
    expect(slugs(await search({ q: 'aviator' }), 'sx-')).toEqual(['sx-aviator']);
    expect(slugs(await search({ q: 'AVIATOR gOLD' }), 'sx-')).toEqual(['sx-aviator']);
    expect(slugs(await search({ q: 'nordlys' }), 'sx-')).toEqual(['sx-aviator']);
    expect(slugs(await search({ q: 'POLARISED' }), 'sx-')).toEqual(['sx-aviator']);
    expect(slugs(await search({ q: 'ghost' }))).toEqual([]);
    expect(slugs(await search({ q: 'no such words anywhere' }))).toEqual([]);
  });

  it.each([
    ['%', 'sx-wayfarer'],
    ['_', 'sx-round'],
    ['\\', 'sx-round'],
    ["' OR 1=1 --", 'sx-quote'],
  ])('q=%j matches literally', async (q, expected) => {
    const rows = await search({ q, limit: 100 });
    expect(slugs(rows, 'sx-')).toEqual([expected]);
    // Not a wildcard: every hit really contains the text.
    for (const r of rows) {
      const p = await row(r.slug as string);
      expect(`${p!.name}\n${p!.brand ?? ''}\n${p!.description}`.toLowerCase()).toContain(q.toLowerCase());
    }
  });

  it('categorySlug, brand, frameColor and lensColor filter exactly (colors and brand case-insensitively)', async () => {
    expect(slugs(await search({ categorySlug: 'sx-other' }))).toEqual(['sx-quote', 'sx-round']);
    expect(slugs(await search({ categorySlug: 'sx-cat' }))).toEqual(['sx-wayfarer', 'sx-aviator']);
    expect(await search({ categorySlug: 'no-such-category' })).toEqual([]);
    expect(slugs(await search({ brand: 'Nordlys' }), 'sx-')).toEqual(['sx-aviator']);
    expect(slugs(await search({ brand: 'acme' }), 'sx-')).toEqual(['sx-quote']);
    expect(slugs(await search({ frameColor: 'gold' }), 'sx-')).toEqual(['sx-quote', 'sx-aviator']);
    expect(slugs(await search({ lensColor: 'grey' }), 'sx-')).toEqual(['sx-wayfarer']);
    expect(slugs(await search({ brand: 'Nord' }), 'sx-')).toEqual([]);
  });

  it('featured and inStock filter both ways', async () => {
    expect(slugs(await search({ featured: true, limit: 100 }), 'sx-')).toEqual(['sx-quote', 'sx-aviator']);
    expect(slugs(await search({ featured: false, categorySlug: 'sx-cat' }))).toEqual(['sx-wayfarer']);
    for (const r of await search({ featured: true, limit: 100 })) expect(r.featured).toBe(true);
    expect(slugs(await search({ inStock: true, categorySlug: 'sx-cat' }))).toEqual(['sx-aviator']);
    expect(slugs(await search({ inStock: false, limit: 100 }), 'sx-')).toEqual(['sx-wayfarer']);
    for (const r of await search({ inStock: false, limit: 100 })) expect(r.stock).toBe(0);
    for (const r of await search({ inStock: true, limit: 100 })) expect(r.stock).toBeGreaterThan(0);
  });

  it('minPriceOere and maxPriceOere are inclusive bounds in øre, up to 9007199254740991', async () => {
    const fixture = (body: Record<string, unknown>) => search({ ...body, limit: 100 }).then((r) => slugs(r, 'sx-').filter((s) => !s.startsWith('sx-bulk')));
    expect(await fixture({ minPriceOere: 50_000 })).toEqual(['sx-quote', 'sx-wayfarer', 'sx-aviator']);
    expect(await fixture({ maxPriceOere: 50_000 })).toEqual(['sx-round', 'sx-wayfarer']);
    expect(await fixture({ minPriceOere: 50_000, maxPriceOere: 100_000 })).toEqual(['sx-wayfarer', 'sx-aviator']);
    expect(await fixture({ minPriceOere: MAX })).toEqual(['sx-quote']);
    expect(await fixture({ minPriceOere: 0, maxPriceOere: MAX })).toEqual(['sx-quote', 'sx-round', 'sx-wayfarer', 'sx-aviator']);
    expect(await search({ minPriceOere: 100_001, maxPriceOere: 100_000 })).toEqual([]);
    const [max] = await search({ q: 'Quoted Shades' });
    expect(max.priceDkk).toBe(MAX);
  });

  it('filters combine with AND', async () => {
    expect(slugs(await search({ q: 'frame', featured: true }), 'sx-')).toEqual(['sx-aviator']);
    expect(slugs(await search({ categorySlug: 'sx-cat', frameColor: 'black', inStock: true }))).toEqual([]);
    expect(slugs(await search({ categorySlug: 'sx-other', maxPriceOere: 30_000, lensColor: 'CLEAR' }))).toEqual(['sx-round']);
  });

  it('limit defaults to 20 and accepts 1..100', async () => {
    expect(await search({ categorySlug: 'sx-bulk' })).toHaveLength(20);
    expect(await search({ categorySlug: 'sx-bulk', limit: 1 })).toHaveLength(1);
    expect(await search({ categorySlug: 'sx-bulk', limit: 100 })).toHaveLength(25);
    expect(await search({ categorySlug: 'sx-bulk', limit: 25 })).toHaveLength(25);
  });

  it.each([0, 101, -1, 1.5, 9007199254740992, '5', null, 100000])('limit %j is 400 invalid_request', async (limit) => {
    const body = expectProblem(await t.call('products.search', { limit }), 400, 'invalid_request');
    expect(body.detail).toContain('limit');
  });

  it('POST /api/v1/tools/products.search refuses bad filter values with 400 naming the field', async () => {
    const bad: Record<string, unknown>[] = [
      { minPriceOere: -1 }, { maxPriceOere: 9007199254740992 }, { minPriceOere: '100' }, { featured: 'true' }, { inStock: 1 },
      { q: 42 }, { q: 'x'.repeat(201) }, { categorySlug: '' }, { brand: null }, { extra: 1 },
    ];
    for (const body of bad) {
      const problem = expectProblem(await t.call('products.search', body), 400, 'invalid_request');
      expect(problem.detail).toContain(Object.keys(body)[0]);
    }
    // Valid under the published schema but not storable text: a domain error naming the field.
    expect(expectProblem(await t.call('products.search', { q: 'x\u0000y' }), 400, 'invalid_text').detail).toContain('q');
  });

  it('results are newest first with the id as a stable tie-breaker, identical on every call', async () => {
    const all = await search({ categorySlug: 'sx-bulk', limit: 100 });
    const ids = all.map((r) => r.id as string);
    expect(ids).toEqual([...ids].sort().reverse());
    expect((await search({ categorySlug: 'sx-bulk', limit: 100 })).map((r) => r.id)).toEqual(ids);
    const page = await search({ categorySlug: 'sx-bulk', limit: 5 });
    expect(page.map((r) => r.id)).toEqual(ids.slice(0, 5));
    // Across different createdAt values, newer first.
    const rows = await search({ limit: 100 });
    const dbRows = await t.db.product.findMany({ where: { id: { in: rows.map((r) => r.id as string) } }, select: { id: true, createdAt: true } });
    const createdAt = new Map(dbRows.map((r) => [r.id, r.createdAt.getTime()]));
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1].id as string, rows[i].id as string];
      expect(createdAt.get(a)! > createdAt.get(b)! || (createdAt.get(a) === createdAt.get(b) && a > b)).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('products.get', () => {
  it('POST /api/v1/tools/products.get returns exactly the declared fields, with its category', async () => {
    await call('categories.upsert', { slug: 'get-cat', name: 'Get category', description: 'For products.get' });
    const { id, slug } = await create({ brand: 'Fjord', frameColor: 'navy', lensColor: null, images: ['https://img.example.com/g.jpg'], categorySlug: 'get-cat', attributes: { hinge: 'spring' }, answerSummary: 'Not in output.' });
    const res = await t.call('products.get', { slug });
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json().result;
    expect(Object.keys(p).sort()).toEqual(DETAIL_KEYS);
    expect(Object.keys(p.category).sort()).toEqual(['description', 'name', 'slug']);
    const db = await row(slug);
    expect(p).toEqual({
      id, slug, name: 'Aviator Classic', brand: 'Fjord', description: 'A classic aviator frame in gold.', priceDkk: 129_900, stock: 5,
      featured: false, frameColor: 'navy', lensColor: null, images: ['https://img.example.com/g.jpg'],
      category: { slug: 'get-cat', name: 'Get category', description: 'For products.get' },
      createdAt: db!.createdAt.toISOString(),
      options: [],
      variants: [{
        id: expect.any(String), sku: null, options: {}, priceDkk: 129_900, compareAtPriceDkk: null, stock: 5, trackStock: true,
        allowBackorder: false, available: true, position: 0, images: [],
      }],
    });
    expect(p.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('POST /api/v1/tools/products.get is 404 not_found for an unknown or soft-deleted slug', async () => {
    expectProblem(await t.call('products.get', { slug: 'never-existed' }), 404, 'not_found');
    const { slug } = await create();
    expect((await call('products.delete', { slug, confirm: true })).statusCode).toBe(200);
    expectProblem(await t.call('products.get', { slug }), 404, 'not_found');
  });

  it('POST /api/v1/tools/products.get needs a non-empty slug string', async () => {
    for (const body of [{}, { slug: '' }, { slug: 5 }, { slug: 'x', extra: true }]) {
      expectProblem(await t.call('products.get', body), 400, 'invalid_request');
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('products.create', () => {
  it('POST /api/v1/tools/products.create stores every field and returns {id, slug}', async () => {
    await call('categories.upsert', { slug: 'create-cat', name: 'Create category' });
    const input = valid({
      brand: 'Havblik', frameColor: 'red', lensColor: 'mirror', featured: true,
      images: ['https://img.example.com/1.jpg', 'http://img.example.com/2.jpg'],
      attributes: { hinge: 'spring', material: 'acetate' },
      answerSummary: 'x'.repeat(500),
      faq: [{ q: 'Polarised?', a: 'Yes.' }],
      useCases: [{ title: 'Driving', description: 'Cuts glare.' }],
      comparisonFacts: { weight: '24 g' },
      categorySlug: 'create-cat',
    });
    const { res, entry } = await expectOneAuditEntry('products.create', input);
    const result = res.json().result;
    expect(Object.keys(result).sort()).toEqual(['id', 'slug']);
    expect(result.slug).toBe(input.slug);
    const db = await t.db.product.findUniqueOrThrow({ where: { id: result.id }, include: { category: true } });
    expect(db).toMatchObject({
      slug: input.slug, name: input.name, description: input.description, brand: 'Havblik', priceDkk: 129_900n, stock: 5n,
      featured: true, frameColor: 'red', lensColor: 'mirror', images: input.images, attributes: input.attributes,
      answerSummary: input.answerSummary, faq: input.faq, useCases: input.useCases, comparisonFacts: input.comparisonFacts, deletedAt: null,
    });
    expect(db.category?.slug).toBe('create-cat');
    expect(entry).toMatchObject({ entityId: result.id, before: null });
    expect(entry.after).toMatchObject({ id: result.id, slug: input.slug, priceDkk: 129_900 });
  });

  it('defaults featured to false, images to [] and an absent category to "uncategorized"', async () => {
    const { slug } = await create();
    const db = await t.db.product.findUniqueOrThrow({ where: { slug }, include: { category: true } });
    expect(db.featured).toBe(false);
    expect(db.images).toEqual([]);
    expect(db.brand).toBeNull();
    expect(db.category?.slug).toBe('uncategorized');
  });

  it('priceDkk 9007199254740991 round-trips exactly (API and database)', async () => {
    const { slug } = await create({ priceDkk: MAX, stock: MAX });
    const db = await row(slug);
    expect(db!.priceDkk).toBe(9007199254740991n);
    expect(db!.stock).toBe(9007199254740991n);
    const get = (await t.call('products.get', { slug })).json().result;
    expect(get.priceDkk).toBe(MAX);
    expect(get.stock).toBe(MAX);
    // The raw JSON text too, not just a number that rounds to it.
    expect((await t.call('products.get', { slug })).body).toContain('"priceDkk":9007199254740991');
  });

  it.each(['name', 'slug', 'description', 'priceDkk', 'stock'])('POST /api/v1/tools/products.create without %s is 400 naming it', async (field) => {
    const body = valid();
    delete (body as Record<string, unknown>)[field];
    const problem = await expectRefused('products.create', body, 400, 'invalid_request');
    expect(problem.detail).toContain(field);
  });

  it.each([
    ['name of 1 character', { name: 'A' }, 'name'],
    ['description under 10 characters', { description: 'Too short' }, 'description'],
    ['priceDkk 0', { priceDkk: 0 }, 'priceDkk'],
    ['priceDkk -1', { priceDkk: -1 }, 'priceDkk'],
    ['priceDkk 1.5', { priceDkk: 1.5 }, 'priceDkk'],
    ['priceDkk "12.99"', { priceDkk: '12.99' }, 'priceDkk'],
    ['priceDkk 9007199254740992', { priceDkk: 9007199254740992 }, 'priceDkk'],
    ['stock -1', { stock: -1 }, 'stock'],
    ['stock 2.5', { stock: 2.5 }, 'stock'],
    ['slug with spaces', { slug: 'bad slug' }, 'slug'],
    ['slug in upper case', { slug: 'Upper-Case' }, 'slug'],
    ['slug of 1 character', { slug: 'a' }, 'slug'],
    ['slug with æøå', { slug: 'blå-brille' }, 'slug'],
    ['name of 100k characters', { name: 'x'.repeat(100_000) }, 'name'],
    ['answerSummary over 500 characters', { answerSummary: 'x'.repeat(501) }, 'answerSummary'],
    ['images not an array', { images: 'https://img.example.com/x.jpg' }, 'images'],
    ['faq item without a', { faq: [{ q: 'Why?' }] }, 'faq'],
    ['faq item with empty q', { faq: [{ q: '', a: 'Because.' }] }, 'faq'],
    ['faq item with an extra key', { faq: [{ q: 'Why?', a: 'Because.', extra: 1 }] }, 'faq'],
    ['faq not an array', { faq: { q: 'Why?', a: 'Because.' } }, 'faq'],
    ['useCases item with empty title', { useCases: [{ title: '', description: 'x' }] }, 'useCases'],
    ['useCases item without description', { useCases: [{ title: 'Driving' }] }, 'useCases'],
    ['attributes with a number value', { attributes: { weight: 24 } }, 'attributes'],
    ['comparisonFacts as an array', { comparisonFacts: ['a'] }, 'comparisonFacts'],
    ['featured as a string', { featured: 'true' }, 'featured'],
    ['categorySlug empty', { categorySlug: '' }, 'categorySlug'],
  ])('POST /api/v1/tools/products.create with %s is 400', async (_label, over, field) => {
    const problem = await expectRefused('products.create', valid(over), 400, 'invalid_request');
    expect(problem.detail).toContain(field);
  });

  // Valid under the published schema (any string; image URLs as `format: uri`), refused with a domain error.
  it.each([
    ['name with a NUL byte', { name: 'Avi\u0000ator' }, 400, 'invalid_text', 'name'],
    ['brand with a NUL byte', { brand: 'Nord\u0000lys' }, 400, 'invalid_text', 'brand'],
    ['an ftp image', { images: ['ftp://img.example.com/x.jpg'] }, 400, 'invalid_image_url', 'images'],
    ['an image that is not a URL', { images: ['not a url'] }, 400, 'invalid_image_url', 'images'],
    ['a javascript: image', { images: ['javascript:alert(1)'] }, 400, 'invalid_image_url', 'images'],
    ['an image on an IP address', { images: ['https://127.0.0.1/x.jpg'] }, 400, 'invalid_image_url', 'images'],
  ] as const)('POST /api/v1/tools/products.create with %s is %i %s', async (_label, over, status, code, field) => {
    const problem = await expectRefused('products.create', valid(over), status, code);
    expect(problem.detail).toContain(field);
  });

  it('priceDkk 1e400 (parsed as Infinity) is 400', async () => {
    const body = JSON.stringify(valid()).replace('"priceDkk":129900', '"priceDkk":1e400');
    expect(body).toContain('1e400');
    const before = await snapshot();
    const problem = expectProblem(await t.call('products.create', body, key), 400, 'invalid_request');
    expect(problem.detail).toContain('priceDkk');
    expect(await snapshot()).toEqual(before);
  });

  it('a lone surrogate in name is 400 invalid_text', async () => {
    const body = JSON.stringify(valid({ name: 'Avi' })).replace('"name":"Avi"', '"name":"Avi\\ud800ator"');
    expect(body).toContain('\\ud800');
    const before = await snapshot();
    const problem = expectProblem(await t.call('products.create', body, key), 400, 'invalid_text');
    expect(problem.detail).toContain('name');
    expect(await snapshot()).toEqual(before);
  });

  it('an unknown field is 400 naming it', async () => {
    const problem = await expectRefused('products.create', valid({ colour: 'red' }), 400, 'invalid_request');
    expect(problem.detail).toContain('"colour"');
  });

  it.each([
    ['id', 'ckfake00000000000000000000'],
    ['createdAt', '2020-01-01T00:00:00Z'],
    ['updatedAt', '2020-01-01T00:00:00Z'],
    ['deletedAt', '2020-01-01T00:00:00Z'],
    ['category', { slug: 'x', name: 'x' }],
    ['usedCount', 0],
  ])('mass assignment of %s is 400', async (field, value) => {
    const problem = await expectRefused('products.create', valid({ [field]: value }), 400, 'invalid_request');
    expect(problem.detail).toContain(`"${field}"`);
  });

  it('a duplicate slug is 409 conflict, also when the holder is soft-deleted', async () => {
    const { slug } = await create();
    await expectRefused('products.create', valid({ slug, name: 'Another name' }), 409, 'conflict');
    expect((await call('products.delete', { slug, confirm: true })).statusCode).toBe(200);
    await expectRefused('products.create', valid({ slug }), 409, 'conflict');
    expect(await t.db.product.count({ where: { slug } })).toBe(1);
  });

  it('concurrent creates of one slug: exactly one succeeds, the others are 409 (never 500)', async () => {
    const slug = uniqueSlug('race');
    const before = await auditCount();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => call('products.create', valid({ slug, name: `Racer ${i}` }))));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) expectProblem(r, 409, 'conflict');
    expect(await t.db.product.count({ where: { slug } })).toBe(1);
    expect(await auditCount()).toBe(before + 1);
  });

  it('a raw 9007199254740993 priceDkk (read as …992) is 400', async () => {
    const body = JSON.stringify(valid()).replace('"priceDkk":129900', '"priceDkk":9007199254740993');
    expect(body).toContain('9007199254740993');
    expectProblem(await t.call('products.create', body, key), 400, 'invalid_request');
  });

  it('assigns the category by categoryId or categorySlug; they must agree; unknown ones are 404', async () => {
    const a = await createCategory(t, key, 'assign-a');
    const b = await createCategory(t, key, 'assign-b');
    const byId = await create({ categoryId: a.id });
    const bySlug = await create({ categorySlug: 'assign-b' });
    const both = await create({ categoryId: b.id, categorySlug: 'assign-b' });
    expect((await row(byId.slug))!.categoryId).toBe(a.id);
    expect((await row(bySlug.slug))!.categoryId).toBe(b.id);
    expect((await row(both.slug))!.categoryId).toBe(b.id);
    await expectRefused('products.create', valid({ categoryId: a.id, categorySlug: 'assign-b' }), 404, 'not_found');
    await expectRefused('products.create', valid({ categorySlug: 'no-such-category' }), 404, 'not_found');
    await expectRefused('products.create', valid({ categoryId: 'ckno0such0category00000000' }), 404, 'not_found');
  });

  it('a failed create writes neither a product nor an audit entry', async () => {
    const before = await snapshot();
    const slug = uniqueSlug();
    expectProblem(await call('products.create', valid({ slug, categorySlug: 'missing-cat' })), 404, 'not_found');
    expect(await row(slug)).toBeNull();
    expect(await snapshot()).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('products.update', () => {
  it('POST /api/v1/tools/products.update applies a partial patch and leaves every other field untouched', async () => {
    await call('categories.upsert', { slug: 'upd-cat', name: 'Update category' });
    const { id, slug } = await create({
      brand: 'Nordlys', featured: true, images: ['https://img.example.com/u1.jpg', 'https://img.example.com/u2.jpg'],
      frameColor: 'gold', lensColor: 'green', attributes: { a: 'b' }, faq: [{ q: 'Q?', a: 'A.' }], categorySlug: 'upd-cat',
    });
    const before = await row(slug);
    const { res, entry } = await expectOneAuditEntry('products.update', { slug, patch: { name: 'Renamed Aviator' } });
    expect(res.json().result).toEqual({ id, slug });
    const after = await row(slug);
    expect(after).toEqual({ ...before, name: 'Renamed Aviator', updatedAt: after!.updatedAt });
    expect(after!.featured).toBe(true);
    expect(after!.images).toEqual(['https://img.example.com/u1.jpg', 'https://img.example.com/u2.jpg']);
    expect(entry.entityId).toBe(id);
    expect(entry.before).toMatchObject({ name: 'Aviator Classic', featured: true });
    expect(entry.after).toMatchObject({ name: 'Renamed Aviator', featured: true });
  });

  it('updates several fields at once, including nulls, price and category', async () => {
    await call('categories.upsert', { slug: 'upd-cat-2', name: 'Update category 2' });
    const { slug } = await create({ brand: 'Nordlys', frameColor: 'gold' });
    await expectOneAuditEntry('products.update', {
      slug, patch: { brand: null, priceDkk: MAX, stock: 0, featured: true, categorySlug: 'upd-cat-2', description: 'A new description text.' },
    });
    const after = await t.db.product.findUniqueOrThrow({ where: { slug }, include: { category: true } });
    expect(after).toMatchObject({ brand: null, frameColor: 'gold', priceDkk: BigInt(MAX), stock: 0n, featured: true, description: 'A new description text.' });
    expect(after.category?.slug).toBe('upd-cat-2');
  });

  it('a slug change is 422 slug_immutable and changes nothing', async () => {
    const { slug } = await create();
    await expectRefused('products.update', { slug, patch: { slug: 'another-slug', name: 'Changed Name' } }, 422, 'slug_immutable');
    await expectRefused('products.update', { slug, patch: { slug: 'another-slug' } }, 422, 'slug_immutable');
    expect((await row(slug))!.name).toBe('Aviator Classic');
    expect(await row('another-slug')).toBeNull();
  });

  it('the current slug repeated in the patch is accepted', async () => {
    const { slug } = await create();
    await expectOneAuditEntry('products.update', { slug, patch: { slug, name: 'Same Slug' } });
    expect((await row(slug))!.name).toBe('Same Slug');
    // …but a patch that only repeats it changes nothing: valid under the schema (minProperties 1), refused with 422.
    await expectRefused('products.update', { slug, patch: { slug } }, 422, 'nothing_to_change');
  });

  it('an empty patch or a missing patch is 400', async () => {
    const { slug } = await create();
    await expectRefused('products.update', { slug, patch: {} }, 400, 'invalid_request');
    await expectRefused('products.update', { slug }, 400, 'invalid_request');
    await expectRefused('products.update', { patch: { name: 'No slug' } }, 400, 'invalid_request');
  });

  it('patch values follow the create constraints; unknown patch fields are named', async () => {
    const { slug } = await create();
    for (const patch of [{ priceDkk: 0 }, { priceDkk: '12.99' }, { name: 'A' }, { description: 'short' }, { stock: -1 }, { answerSummary: 'x'.repeat(501) }]) {
      const problem = await expectRefused('products.update', { slug, patch }, 400, 'invalid_request');
      expect(problem.detail).toContain(Object.keys(patch)[0]);
    }
    expect((await expectRefused('products.update', { slug, patch: { images: ['ftp://x.example.com/a.jpg'] } }, 400, 'invalid_image_url')).detail).toContain('images');
    const problem = await expectRefused('products.update', { slug, patch: { colour: 'red' } }, 400, 'invalid_request');
    expect(problem.detail).toContain('"colour"');
    for (const field of ['id', 'createdAt', 'deletedAt']) {
      await expectRefused('products.update', { slug, patch: { [field]: null } }, 400, 'invalid_request');
    }
  });

  it('an unknown or soft-deleted slug is 404; an unknown category is 404', async () => {
    await expectRefused('products.update', { slug: 'never-existed', patch: { name: 'New Name' } }, 404, 'not_found');
    const { slug } = await create();
    await expectRefused('products.update', { slug, patch: { categorySlug: 'no-such-category' } }, 404, 'not_found');
    expect((await call('products.delete', { slug, confirm: true })).statusCode).toBe(200);
    await expectRefused('products.update', { slug, patch: { name: 'New Name' } }, 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('products.delete', () => {
  it.each([
    ['missing', undefined],
    ['"true"', 'true'],
    ['1', 1],
    ['false', false],
    ['"false"', 'false'],
    ['null', null],
  ])('POST /api/v1/tools/products.delete needs confirm: true (confirm %s is 422)', async (_label, confirm) => {
    const { slug } = await create();
    const body = confirm === undefined ? { slug } : { slug, confirm };
    await expectRefused('products.delete', body, 422, 'confirmation_required');
    expect((await row(slug))!.deletedAt).toBeNull();
    expect((await t.call('products.get', { slug })).statusCode).toBe(200);
  });

  it('confirm: true soft-deletes: deletedAt set, hidden from search and get, slug stays reserved', async () => {
    const { id, slug } = await create({ name: 'Doomed Frame' });
    expect(slugs(await search({ q: 'Doomed Frame' }))).toEqual([slug]);
    const { res, entry } = await expectOneAuditEntry('products.delete', { slug, confirm: true });
    expect(res.json()).toEqual({ ok: true, result: { ok: true, slug } });
    const db = await row(slug);
    expect(db!.deletedAt).toBeInstanceOf(Date);
    expect(db!.id).toBe(id);
    expect(entry).toMatchObject({ entityId: id });
    expect((entry.before as Record<string, unknown>).deletedAt).toBeNull();
    expect((entry.after as Record<string, unknown>).deletedAt).toBe(db!.deletedAt!.toISOString());
    expect(await search({ q: 'Doomed Frame' })).toEqual([]);
    expectProblem(await t.call('products.get', { slug }), 404, 'not_found');
    await expectRefused('products.create', valid({ slug }), 409, 'conflict');
    await expectRefused('products.delete', { slug, confirm: true }, 404, 'not_found');
  });

  it('concurrent deletes of one product: exactly one succeeds and writes an audit entry, the others are 404', async () => {
    const { id, slug } = await create();
    const before = await auditCount();
    const results = await Promise.all(Array.from({ length: 4 }, () => call('products.delete', { slug, confirm: true })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 404, 404, 404]);
    expect(await auditCount()).toBe(before + 1);
    expect(await t.db.auditEntry.count({ where: { tool: 'products.delete', entityId: id } })).toBe(1);
  });

  it('dryRun: true without confirm reports the change and changes nothing', async () => {
    const { id, slug } = await create();
    const before = await snapshot();
    const res = await call('products.delete', { slug, dryRun: true });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ok: true, dryRun: true, result: { ok: true, slug } });
    expect(body.changes).toHaveLength(1);
    expect(body.changes[0]).toMatchObject({ entityType: 'product', entityId: id, before: { deletedAt: null } });
    expect(body.changes[0].after.deletedAt).toEqual(expect.any(String));
    expect(await snapshot()).toEqual(before);
    expect((await t.call('products.get', { slug })).statusCode).toBe(200);
  });

  it('dryRun must be a boolean; an unknown slug is 404', async () => {
    const { slug } = await create();
    await expectRefused('products.delete', { slug, dryRun: 'true' }, 400, 'invalid_request');
    await expectRefused('products.delete', { slug: 'never-existed', confirm: true }, 404, 'not_found');
    await expectRefused('products.delete', { confirm: true }, 400, 'invalid_request');
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('products.attach_image', () => {
  it.each([
    'http://img.example.com/a.jpg',
    'https://127.0.0.1/a.jpg',
    'https://[::1]/a.jpg',
    'https://169.254.169.254/latest/meta-data/',
    'https://0x7f000001/a.jpg',
    'https://2130706433/a.jpg',
    'https://user:pass@img.example.com/a.jpg',
    'https://localhost/a.jpg',
    'https://localhost./a.jpg',
    'https://printer.local/a.jpg',
    'file:///etc/passwd',
    'not a url',
    'javascript:alert(1)',
  ])('POST /api/v1/tools/products.attach_image refuses %s with 400 invalid_image_url', async (imageUrl) => {
    const { slug } = await create({ images: ['https://img.example.com/base.jpg'] });
    await expectRefused('products.attach_image', { slug, imageUrl }, 400, 'invalid_image_url');
  });

  it('appends an https URL at the end and reports totalImages; one audit entry', async () => {
    const { id, slug } = await create({ images: ['https://img.example.com/first.jpg'] });
    const url = 'https://cdn.example.com/photos/second.jpg';
    const { res, entry } = await expectOneAuditEntry('products.attach_image', { slug, imageUrl: url, alt: 'Side view', sourceId: 'stock-42' });
    expect(res.json().result).toEqual({ ok: true, slug, attached: url, totalImages: 2 });
    expect((await row(slug))!.images).toEqual(['https://img.example.com/first.jpg', url]);
    expect(entry).toMatchObject({ entityId: id, meta: { imageUrl: url, alt: 'Side view', sourceId: 'stock-42' } });
    expect((entry.after as { images: string[] }).images).toEqual(['https://img.example.com/first.jpg', url]);
    expect((await t.call('products.get', { slug })).json().result.images).toEqual(['https://img.example.com/first.jpg', url]);
  });

  it('attaching the first image to a product without images gives totalImages 1', async () => {
    const { slug } = await create();
    const res = await call('products.attach_image', { slug, imageUrl: 'https://cdn.example.com/only.jpg' });
    expect(res.json().result).toEqual({ ok: true, slug, attached: 'https://cdn.example.com/only.jpg', totalImages: 1 });
  });

  it('the same URL again is alreadyAttached: true and changes nothing', async () => {
    const url = 'https://cdn.example.com/dup.jpg';
    const { slug } = await create({ images: ['https://img.example.com/x.jpg', url] });
    const before = await snapshot();
    const res = await call('products.attach_image', { slug, imageUrl: url });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toEqual({ ok: true, slug, alreadyAttached: true, totalImages: 2 });
    expect(await snapshot()).toEqual(before);
  });

  it('concurrent attaches: distinct URLs are all appended, one URL is attached once', async () => {
    const { slug } = await create({ images: ['https://img.example.com/base.jpg'] });
    const urls = Array.from({ length: 5 }, (_, i) => `https://cdn.example.com/c${i}.jpg`);
    const before = await auditCount();
    const results = await Promise.all(urls.map((imageUrl) => call('products.attach_image', { slug, imageUrl })));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const images = (await row(slug))!.images;
    expect(images).toHaveLength(6);
    expect(new Set(images)).toEqual(new Set(['https://img.example.com/base.jpg', ...urls]));
    expect(await auditCount()).toBe(before + 5);

    const same = await Promise.all(Array.from({ length: 4 }, () => call('products.attach_image', { slug, imageUrl: 'https://cdn.example.com/same.jpg' })));
    const bodies = same.map((r) => r.json().result);
    expect(bodies.filter((b) => b.attached)).toHaveLength(1);
    expect(bodies.filter((b) => b.alreadyAttached)).toHaveLength(3);
    expect((await row(slug))!.images.filter((u) => u === 'https://cdn.example.com/same.jpg')).toHaveLength(1);
    expect(await auditCount()).toBe(before + 6);
  });

  it('refuses bad fields with 400 and unknown products with 404', async () => {
    const { slug } = await create();
    await expectRefused('products.attach_image', { slug }, 400, 'invalid_request');
    await expectRefused('products.attach_image', { slug, imageUrl: 'https://cdn.example.com/a.jpg', alt: 'x'.repeat(201) }, 400, 'invalid_request');
    await expectRefused('products.attach_image', { slug, imageUrl: 'https://cdn.example.com/a.jpg', confirm: true }, 400, 'invalid_request');
    await expectRefused('products.attach_image', { slug: 'never-existed', imageUrl: 'https://cdn.example.com/a.jpg' }, 404, 'not_found');
    expect((await call('products.delete', { slug, confirm: true })).statusCode).toBe(200);
    await expectRefused('products.attach_image', { slug, imageUrl: 'https://cdn.example.com/a.jpg' }, 404, 'not_found');
  });
});
