// The variant model under the existing tools (docs/catalog.md, "Variants"): every product has a default variant
// that follows its price and stock; with several variants the product's priceDkk and stock are derived from them
// and products.update of either is 422 variant_required.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { lastAudit, okResult, revert } from '../helpers/calls.ts';
import { CHECKOUT_CONTACT, createCart, createProduct, makeProduct } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key();
});
afterAll(async () => {
  await t?.close();
});

const variantsOf = (productId: string) =>
  t.db.productVariant.findMany({ where: { productId }, orderBy: { position: 'asc' } });

/** A second variant written straight to the rows, as products.set_options would leave it. */
async function makeTwoVariants(slug: string) {
  const product = await makeProduct(t.db, { slug, priceDkk: 20_000, stock: 3 });
  const [first] = await variantsOf(product.id);
  await t.db.productOption.create({ data: { productId: product.id, position: 0, name: 'Size', values: ['S', 'M'] } });
  await t.db.productVariant.update({ where: { id: first.id }, data: { optionValues: ['S'] } });
  const second = await t.db.productVariant.create({ data: { productId: product.id, optionValues: ['M'], priceDkk: 15_000n, stock: 4n, position: 1 } });
  return { product, first, second };
}

describe('the default variant', () => {
  it('is created with every product, carrying its price and stock, and follows products.update', async () => {
    const { id, slug } = await createProduct(t, key, { slug: 'one-variant', priceDkk: 12_300, stock: 7 });
    const [variant, ...others] = await variantsOf(id);
    expect(others).toEqual([]);
    expect(variant).toMatchObject({ priceDkk: 12_300n, stock: 7n, optionValues: [], sku: null, deletedAt: null });

    okResult(await t.call('products.update', { slug, patch: { priceDkk: 9_900, stock: 2 } }, key));
    expect(await t.db.productVariant.findUnique({ where: { id: variant.id } })).toMatchObject({ priceDkk: 9_900n, stock: 2n });
    expect(await t.db.product.findUnique({ where: { id } })).toMatchObject({ priceDkk: 9_900n, stock: 2n });
  });

  it('has its stock taken by a checkout and given back by audit.revert of a products.update', async () => {
    const product = await makeProduct(t.db, { slug: 'checked-out', stock: 5 });
    const { cartId } = await createCart(t, key, [{ productSlug: 'checked-out', quantity: 2 }]);
    okResult(await t.call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT }, key));
    expect((await variantsOf(product.id))[0].stock).toBe(3n);

    okResult(await t.call('products.update', { slug: 'checked-out', patch: { stock: 10 } }, key));
    okResult(await revert(t, key, (await lastAudit(t, 'products.update', product.id)).id));
    expect((await variantsOf(product.id))[0].stock).toBe(3n);
  });
});

describe('a product with several variants', () => {
  it('has the lowest live price and the total stock, kept in step with its variants', async () => {
    const { product, second } = await makeTwoVariants('two-sizes');
    expect(await t.db.product.findUnique({ where: { id: product.id } })).toMatchObject({ priceDkk: 15_000n, stock: 7n });
    await t.db.productVariant.update({ where: { id: second.id }, data: { deletedAt: new Date() } });
    expect(await t.db.product.findUnique({ where: { id: product.id } })).toMatchObject({ priceDkk: 20_000n, stock: 3n });
  });

  it('refuses products.update of priceDkk or stock with 422 variant_required naming variants.update, changing nothing', async () => {
    const { product } = await makeTwoVariants('two-tiers');
    for (const patch of [{ priceDkk: 1 }, { stock: 100 }, { stock: 7, name: 'Renamed' }]) {
      const problem = expectProblem(await t.call('products.update', { slug: 'two-tiers', patch }, key), 422, 'variant_required');
      expect(problem.detail).toContain('variants.update');
    }
    expect(await t.db.product.findUnique({ where: { id: product.id } })).toMatchObject({ priceDkk: 15_000n, stock: 7n, name: product.name });
    expect(await t.db.auditEntry.count({ where: { entityId: product.id } })).toBe(0);
    // Other fields stay writable.
    okResult(await t.call('products.update', { slug: 'two-tiers', patch: { name: 'Two tiers' } }, key));
  });

  it('is reverted (audit.revert of a products.update from before its variants) without touching the variants', async () => {
    const product = await makeProduct(t.db, { slug: 'grew-variants', priceDkk: 20_000, stock: 3 });
    okResult(await t.call('products.update', { slug: 'grew-variants', patch: { name: 'Before variants' } }, key));
    const entry = await lastAudit(t, 'products.update', product.id);
    const [first] = await variantsOf(product.id);
    await t.db.productVariant.create({ data: { productId: product.id, optionValues: ['M'], priceDkk: 15_000n, stock: 4n, position: 1 } });
    await t.db.productVariant.update({ where: { id: first.id }, data: { optionValues: ['S'] } });

    okResult(await revert(t, key, entry.id, true));
    expect(await t.db.product.findUnique({ where: { id: product.id } })).toMatchObject({ name: product.name, priceDkk: 15_000n, stock: 7n });
    expect((await variantsOf(product.id)).map((v) => v.stock)).toEqual([3n, 4n]);
  });
});
