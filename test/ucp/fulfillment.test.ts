// UCP fulfillment against the flower shop's shipping rates (docs/agentic-checkout.md, "Fulfillment options"): the
// options a destination's country gets, free shipping by promotion, the chosen rate in the totals and the order,
// the order's delivery description, and the readings the conformance suite needed (locality/region, no listed
// destinations before one is given, buyer consent kept). Every answer is validated against the protocol's schemas.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedFlowerShop } from '../../src/cli/seed/flower-shop.ts';
import { createTestApp } from '../helpers/app.ts';
import {
  ADDRESS, checkout, createBody, expectValid, FLOWER_SHOP, lines, ORDER_SCHEMA, paymentWith, ROSES, STANDARD_RATE, total, ucp, useUcp, type UcpCheckout,
} from './helpers.ts';

const ctx = useUcp();

type Option = { id: string; title: string; totals: Array<{ type: string; amount: number }> };
type Method = { destinations?: Array<Record<string, string>>; selected_destination_id?: string | null; groups: Array<{ options: Option[]; selected_option_id: string | null }> };
const method = (c: UcpCheckout) => c.fulfillment.methods[0] as unknown as Method;
const options = (c: UcpCheckout) => method(c).groups[0].options.map((o) => ({ id: o.id, title: o.title, amount: o.totals.find((t) => t.type === 'total')?.amount }));

const create = async (body: unknown) => checkout(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', body), 201);
const shipTo = (destination: Record<string, string>, optionId?: string) => ({
  methods: [{ type: 'shipping', destinations: [{ id: 'dest', ...destination }], selected_destination_id: 'dest', ...(optionId ? { groups: [{ selected_option_id: optionId }] } : {}) }],
});

describe('options by destination', () => {
  it('quotes the rates of the destination’s country once the country is known, the country’s own rate first', async () => {
    const us = await create({ line_items: lines([['pot_ceramic', 1]]), fulfillment: shipTo({ address_country: 'US', postal_code: '62704' }) });
    expect(options(us)).toEqual([
      { id: STANDARD_RATE, title: 'Standard Shipping', amount: 500 },
      { id: 'exp-ship-us', title: 'Express Shipping (US)', amount: 1500 },
    ]);
    // Quoted, but the address is not yet one to ship to.
    expect(us.messages.map((m) => m.path)).toContain('$.fulfillment.methods[0].destinations');
    const ca = await create({ line_items: lines([['pot_ceramic', 1]]), fulfillment: shipTo({ address_country: 'ca', postal_code: 'M5V 2H1' }) });
    expect(options(ca).map((o) => o.id)).toEqual([STANDARD_RATE, 'exp-ship-intl']);
  });

  it('lists no destinations and no options before a destination is given', async () => {
    const c = await create({ line_items: lines([['pot_ceramic', 1]]), fulfillment: { methods: [{ type: 'shipping' }] } });
    expect(method(c).destinations).toBeUndefined();
    expect(method(c).selected_destination_id).toBeUndefined();
    expect(method(c).groups[0].options).toEqual([]);
  });

  it('ships the standard rate free for an eligible item or from the promotion’s subtotal, and says so', async () => {
    const roses = await create(createBody([[ROSES, 1]], true));
    expect(options(roses)[0]).toEqual({ id: STANDARD_RATE, title: 'Standard Shipping (Free)', amount: 0 });
    expect(total(roses, 'fulfillment')).toBe(0);
    const big = await create({ line_items: lines([['orchid_white', 3]]), fulfillment: shipTo(ADDRESS, 'exp-ship-us') });
    expect(options(big)).toEqual([
      { id: STANDARD_RATE, title: 'Standard Shipping (Free)', amount: 0 },
      { id: 'exp-ship-us', title: 'Express Shipping (US)', amount: 1500 },
    ]);
    // Express is not part of the promotion.
    expect(total(big, 'fulfillment')).toBe(1500);
    expect(total(big, 'total')).toBe(13_500 + 1500);
  });

  it('reports an option the destination is not offered, and offers it no more when the country changes', async () => {
    const c = await create({ ...createBody([['pot_ceramic', 1]], true), fulfillment: shipTo(ADDRESS, 'exp-ship-us') });
    expect(c.status).toBe('ready_for_complete');
    const moved = checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, {
      line_items: lines([['pot_ceramic', 1]]), fulfillment: shipTo({ ...ADDRESS, address_country: 'CA' }, 'exp-ship-us'),
    }));
    expect(method(moved).groups[0].selected_option_id).toBeNull();
    expect(moved.messages.map((m) => m.path)).toContain('$.fulfillment.methods[0].groups[0].selected_option_id');
    expect(total(moved, 'fulfillment')).toBeUndefined();
  });
});

describe('the chosen rate in the order', () => {
  it('charges the chosen rate and describes the delivery by its title', async () => {
    const c = await create({
      line_items: lines([['bouquet_sunflowers', 1]]), buyer: { email: 'sun@example.com' }, fulfillment: shipTo(ADDRESS, 'exp-ship-us'),
    });
    expect(c.status).toBe('ready_for_complete');
    expect(total(c, 'total')).toBe(2500 + 1500);
    const done = checkout(await ucp(ctx.t, ctx.p, 'POST', `/ucp/checkout-sessions/${c.id}/complete`, paymentWith('success_token')));
    const order = await ctx.t.db.order.findUniqueOrThrow({ where: { id: done.order!.id } });
    expect(order).toMatchObject({ shippingDkk: 1500n, totalDkk: 4000n });
    const read = await ucp(ctx.t, ctx.p, 'GET', `/ucp/orders/${order.id}`);
    expect(read.statusCode, read.body).toBe(200);
    expectValid(read.json(), [ORDER_SCHEMA]);
    expect(read.json().fulfillment.expectations[0]).toMatchObject({ description: 'Express Shipping (US)', destination: { address_country: 'US' } });
    expect(read.json().totals).toEqual(expect.arrayContaining([{ type: 'fulfillment', amount: 1500 }]));
  });
});

describe('readings', () => {
  it('takes locality and region when address_locality and address_region are absent, answering in the schema’s names', async () => {
    const { address_locality: city, address_region: state, ...rest } = ADDRESS;
    const c = await create({ ...createBody([['pot_ceramic', 1]], true), fulfillment: shipTo({ ...rest, locality: city, region: state }, STANDARD_RATE) });
    expect(c.status).toBe('ready_for_complete');
    expect(method(c).destinations?.[0]).toMatchObject({ address_locality: 'San Francisco', address_region: 'CA' });
    expect(method(c).destinations?.[0]).not.toHaveProperty('locality');
  });

  it('gives a destination sent with an empty id the default one', async () => {
    const c = await create({ line_items: lines([['pot_ceramic', 1]]), fulfillment: { methods: [{ type: 'shipping', destinations: [{ id: '', ...ADDRESS }] }] } });
    expect(method(c).destinations?.[0].id).toBe('dest_1');
    expect(method(c).selected_destination_id).toBe('dest_1');
  });

  it('keeps the buyer’s consent and shows it back', async () => {
    const consent = { marketing: true, analytics: false, sale_of_data: false };
    const c = await create({ ...createBody(), buyer: { email: 'consent@example.com', first_name: 'Consent', consent } });
    expect(c.buyer).toEqual({ email: 'consent@example.com', first_name: 'Consent', consent });
    const again = checkout(await ucp(ctx.t, ctx.p, 'GET', `/ucp/checkout-sessions/${c.id}`));
    expect(again.buyer).toMatchObject({ consent });
  });
});

describe('seed --ucp-flower-shop', () => {
  it('loads the rates and promotions, and what the suite’s JSON inputs expect beyond the CSV files', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'flower-shop-'));
    cpSync(FLOWER_SHOP, folder, { recursive: true });
    // A fixture code the CSV file lacks, and a product the suite says does not exist.
    const discounts = readFileSync(path.join(folder, 'discounts.csv'), 'utf8').split('\n').filter((l) => !l.startsWith('WELCOME20')).join('\n');
    writeFileSync(path.join(folder, 'discounts.csv'), discounts);
    writeFileSync(path.join(folder, 'products.csv'), `${readFileSync(path.join(folder, 'products.csv'), 'utf8').trimEnd()}\npink_wumpus,"Pink Wumpus, large",100,\n`);
    const t = await createTestApp();
    try {
      const summary = await seedFlowerShop(t.db, folder);
      expect(summary).toMatchObject({ products: 7, shippingRates: 3 });
      expect(await t.db.discountCode.findUniqueOrThrow({ where: { code: 'WELCOME20' } })).toMatchObject({ type: 'percent', value: 20n });
      expect((await t.db.productVariant.findUniqueOrThrow({ where: { id: 'pink_wumpus' } })).deletedAt).not.toBeNull();
      expect((await t.db.productVariant.findUniqueOrThrow({ where: { id: 'gardenias' } })).stock).toBe(0n);
      const standard = await t.db.shippingRate.findUniqueOrThrow({ where: { id: STANDARD_RATE } });
      expect(standard).toMatchObject({ countryCode: null, priceDkk: 500n, freeFromDkk: 10_000n, freeForVariantIds: [ROSES] });
      expect(await t.db.shippingRate.findUniqueOrThrow({ where: { id: 'exp-ship-us' } })).toMatchObject({ countryCode: 'US', freeFromDkk: null, freeForVariantIds: [] });
      // Seeding again resets the same rows.
      await seedFlowerShop(t.db, folder);
      expect(await t.db.shippingRate.count()).toBe(3);
    } finally {
      await t.close();
    }
  });
});
