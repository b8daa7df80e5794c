// The shipping rate tools (docs/agentic-checkout.md, "Shipping rate tools") over HTTP against PostgreSQL: what each
// answers, the rows and audit entries it leaves, the rules of a rate (one per service level and country, existing
// variants, assigned country codes), revert, and that a rate set by the tool is what a UCP checkout session offers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { concurrently, expectScopeEnforced, lastAudit, okResult, revert } from '../helpers/calls.ts';
import { resetTables } from '../helpers/database.ts';
import { expectProblem, NOT_CONFIRMED } from '../helpers/problem.ts';
import { ADDRESS, checkout, lines, startPlatform, ucp, ucpApp, type Platform, type UcpCheckout } from '../ucp/helpers.ts';

let t: TestApp;
let p: Platform;
let key: string;
beforeAll(async () => {
  // The flower shop: its variants have the shop's item ids (bouquet_roses …), and a platform can open UCP sessions.
  t = await ucpApp();
  p = await startPlatform(t);
  key = await t.key(['settings:read', 'settings:write', 'audit:read', 'audit:revert']);
});
afterAll(async () => {
  await p?.close();
  await t?.close();
});
beforeEach(async () => {
  await resetTables(t.db, 'ShippingRate', 'AuditEntry');
});

type Rate = {
  id: string; title: string; serviceLevel: string; countryCode: string | null; priceDkk: number; freeFromDkk: number | null; freeForVariantIds: string[]; updatedAt: string;
};
const STANDARD = { id: 'std', title: 'Standard', serviceLevel: 'standard', countryCode: null, priceDkk: 4900 };
const setRate = (body: Record<string, unknown>) => t.call('shipping.set_rate', { ...STANDARD, ...body }, key);
const deleteRate = (body: Record<string, unknown>) => t.call('shipping.delete_rate', body, key);
const row = (id: string) => t.db.shippingRate.findUnique({ where: { id } });

describe('POST /api/v1/tools/shipping.set_rate', () => {
  it('creates a rate, with freeFromDkk null and no free variants unless given', async () => {
    const { rate, created } = okResult<{ rate: Rate; created: boolean }>(await setRate({}));
    expect(created).toBe(true);
    expect(rate).toEqual({ ...STANDARD, freeFromDkk: null, freeForVariantIds: [], updatedAt: expect.any(String) });
    expect(await row('std')).toMatchObject({ title: 'Standard', serviceLevel: 'standard', countryCode: null, priceDkk: 4900n, freeFromDkk: null, freeForVariantIds: [] });
  });

  it('replaces every field of the rate with the same id, and says it did not create it', async () => {
    okResult(await setRate({ freeFromDkk: 50_000, freeForVariantIds: ['bouquet_roses'] }));
    const { rate, created } = okResult<{ rate: Rate; created: boolean }>(
      await setRate({ title: 'Express DK', serviceLevel: 'express', countryCode: 'DK', priceDkk: 9900 }),
    );
    expect(created).toBe(false);
    expect(rate).toMatchObject({ id: 'std', title: 'Express DK', serviceLevel: 'express', countryCode: 'DK', priceDkk: 9900, freeFromDkk: null, freeForVariantIds: [] });
    expect(await t.db.shippingRate.count()).toBe(1);
    expect(await row('std')).toMatchObject({ serviceLevel: 'express', countryCode: 'DK', priceDkk: 9900n, freeFromDkk: null, freeForVariantIds: [] });
  });

  it('accepts the bounds: 0 and 2^53 − 1 øre, a free rate, 100 free variants named twice', async () => {
    okResult(await setRate({ priceDkk: 0, freeFromDkk: 0 }));
    const { rate } = okResult<{ rate: Rate }>(
      await setRate({ id: 'max', serviceLevel: 'freight', priceDkk: Number.MAX_SAFE_INTEGER, freeFromDkk: Number.MAX_SAFE_INTEGER, freeForVariantIds: ['bouquet_roses', 'bouquet_roses'] }),
    );
    // Named twice, kept once.
    expect(rate.freeForVariantIds).toEqual(['bouquet_roses']);
    expect((await row('max'))!.priceDkk).toBe(9007199254740991n);
  });

  it('keeps one rate per service level and country: another id for the same pair is 409 conflict naming the rate', async () => {
    okResult(await setRate({}));
    okResult(await setRate({ id: 'std-dk', countryCode: 'DK' }));
    okResult(await setRate({ id: 'exp', serviceLevel: 'express' }));
    const clash = expectProblem(await setRate({ id: 'std-2', priceDkk: 100 }), 409, 'conflict');
    expect(clash.detail).toContain('"std"');
    expect(clash.detail).toContain('every country');
    expect(expectProblem(await setRate({ id: 'dk-again', countryCode: 'DK' }), 409, 'conflict').detail).toContain('"std-dk"');
    // The rate itself may move to a free pair, but not onto a taken one.
    expectProblem(await setRate({ id: 'exp', serviceLevel: 'standard', countryCode: 'DK' }), 409, 'conflict');
    okResult(await setRate({ id: 'exp', serviceLevel: 'express', countryCode: 'SE' }));
    expect((await t.db.shippingRate.findMany({ orderBy: { id: 'asc' } })).map((r) => [r.id, r.serviceLevel, r.countryCode])).toEqual([
      ['exp', 'express', 'SE'], ['std', 'standard', null], ['std-dk', 'standard', 'DK'],
    ]);
  });

  it('lets one of 8 concurrent rates for the same pair win; the others are 409 conflict', async () => {
    const responses = await concurrently(8, (i) => setRate({ id: `race-${i}`, serviceLevel: 'race', countryCode: 'NO' }));
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of responses.filter((x) => x.statusCode !== 200)) expectProblem(r, 409, 'conflict');
    expect(await t.db.shippingRate.count({ where: { serviceLevel: 'race' } })).toBe(1);
  });

  it('refuses free variants that do not exist or are deleted with 404 not_found naming them', async () => {
    const detail = expectProblem(await setRate({ freeForVariantIds: ['bouquet_roses', 'no_such_variant'] }), 404, 'not_found').detail;
    expect(detail).toContain('"no_such_variant"');
    expect(detail).not.toContain('"bouquet_roses"');
    const gone = await t.db.productVariant.update({ where: { id: 'pot_ceramic' }, data: { deletedAt: new Date() } });
    try {
      expectProblem(await setRate({ freeForVariantIds: [gone.id] }), 404, 'not_found');
    } finally {
      await t.db.productVariant.update({ where: { id: gone.id }, data: { deletedAt: null } });
    }
    expect(await t.db.shippingRate.count()).toBe(0);
  });

  it.each([
    ['an unassigned country code', { countryCode: 'QQ' }],
    ['a region that is no country', { countryCode: 'EU' }],
  ])('refuses %s with 400 invalid_country_code', async (_name, body) => {
    expectProblem(await setRate(body), 400, 'invalid_country_code');
    expect(await t.db.shippingRate.count()).toBe(0);
  });

  it.each([
    ['an id with upper case', { id: 'Std' }],
    ['an id with a space', { id: 'std ship' }],
    ['an id over 64 characters', { id: 'a'.repeat(65) }],
    ['an empty title', { title: '' }],
    ['a title over 100 characters', { title: 'T'.repeat(101) }],
    ['a service level that is no slug', { serviceLevel: 'Next Day' }],
    ['a lower-case country code', { countryCode: 'dk' }],
    ['an alpha-3 country code', { countryCode: 'DNK' }],
    ['a missing country (null is every country)', { countryCode: undefined }],
    ['a negative price', { priceDkk: -1 }],
    ['a fractional price', { priceDkk: 49.5 }],
    ['a price beyond 2^53 − 1', { priceDkk: 2 ** 53 }],
    ['a price as a string', { priceDkk: '4900' }],
    ['a negative freeFromDkk', { freeFromDkk: -1 }],
    ['101 free variants', { freeForVariantIds: Array.from({ length: 101 }, (_, i) => `v${i}`) }],
    ['an empty variant id', { freeForVariantIds: [''] }],
    ['an unknown field', { updatedAt: '2026-01-01T00:00:00Z' }],
  ])('refuses %s with 400 invalid_request', async (_name, body) => {
    expectProblem(await setRate(body), 400, 'invalid_request');
    expect(await t.db.shippingRate.count()).toBe(0);
  });

  it('writes an audit entry with the rate before and after, and emits shipping_rate events', async () => {
    okResult(await setRate({}));
    const created = await lastAudit(t, 'shipping.set_rate', 'std');
    expect(created).toMatchObject({ entityType: 'shipping_rate', before: null, after: { id: 'std', priceDkk: 4900, countryCode: null, freeForVariantIds: [] } });
    okResult(await setRate({ priceDkk: 5900 }));
    const replaced = await lastAudit(t, 'shipping.set_rate', 'std');
    expect(replaced).toMatchObject({ before: { priceDkk: 4900 }, after: { priceDkk: 5900 } });
    const events = await t.db.webhookEvent.findMany({ where: { entityType: 'shipping_rate', entityId: 'std' }, orderBy: { sequence: 'asc' } });
    expect(events.slice(-2).map((e) => e.type)).toEqual(['shipping_rate.created', 'shipping_rate.updated']);
  });

  it('is reversible: reverting a creation removes the rate, reverting a replacement restores it', async () => {
    okResult(await setRate({ freeFromDkk: 30_000 }));
    const creation = await lastAudit(t, 'shipping.set_rate', 'std');
    okResult(await setRate({ title: 'Slow', priceDkk: 100, freeFromDkk: null, freeForVariantIds: ['bouquet_roses'] }));
    const replacement = await lastAudit(t, 'shipping.set_rate', 'std');
    // The creation's entry is no longer the rate's state: refused unless forced.
    expectProblem(await revert(t, key, creation.id), 422, 'revert_conflict');
    expect(okResult(await revert(t, key, replacement.id))).toMatchObject({ restored: 'previous_state' });
    expect(await row('std')).toMatchObject({ title: 'Standard', priceDkk: 4900n, freeFromDkk: 30_000n, freeForVariantIds: [] });
    okResult(await revert(t, key, creation.id, true));
    expect(await row('std')).toBeNull();
  });

  it('persists nothing on a dry run, and reports the change', async () => {
    const res = await setRate({ dryRun: true });
    expect(res.json()).toMatchObject({ ok: true, dryRun: true, result: { created: true }, changes: [{ entityType: 'shipping_rate', entityId: 'std', before: null }] });
    expect(await t.db.shippingRate.count()).toBe(0);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('replays an Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'set-std-once' };
    const first = okResult(await t.call('shipping.set_rate', STANDARD, key, { headers }));
    const again = await t.call('shipping.set_rate', STANDARD, key, { headers });
    expect(okResult(again)).toEqual(first);
    expect(await t.db.auditEntry.count({ where: { tool: 'shipping.set_rate' } })).toBe(1);
  });

  it('needs settings:write', async () => {
    await expectScopeEnforced(t, 'shipping.set_rate', 'settings:write', STANDARD);
  });
});

describe('POST /api/v1/tools/shipping.list_rates', () => {
  it('lists every rate by service level, then country (every country first), then id', async () => {
    okResult(await setRate({ id: 'exp-us', serviceLevel: 'express', countryCode: 'US', priceDkk: 1500 }));
    okResult(await setRate({ id: 'std-dk', countryCode: 'DK', priceDkk: 3900, freeForVariantIds: ['bouquet_roses'] }));
    okResult(await setRate({ id: 'std', freeFromDkk: 50_000 }));
    okResult(await setRate({ id: 'exp', serviceLevel: 'express', priceDkk: 2500 }));
    const rates = okResult<Rate[]>(await t.call('shipping.list_rates', {}, key));
    expect(rates.map((r) => r.id)).toEqual(['exp', 'exp-us', 'std', 'std-dk']);
    expect(rates[3]).toEqual({
      id: 'std-dk', title: 'Standard', serviceLevel: 'standard', countryCode: 'DK', priceDkk: 3900, freeFromDkk: null, freeForVariantIds: ['bouquet_roses'],
      updatedAt: (await row('std-dk'))!.updatedAt.toISOString(),
    });
    expect(rates[2]).toMatchObject({ id: 'std', countryCode: null, freeFromDkk: 50_000 });
  });

  it('lists nothing for a shop without rates, and refuses fields', async () => {
    expect(okResult(await t.call('shipping.list_rates', {}, key))).toEqual([]);
    expectProblem(await t.call('shipping.list_rates', { countryCode: 'DK' }, key), 400, 'invalid_request');
  });

  it('needs settings:read', async () => {
    await expectScopeEnforced(t, 'shipping.list_rates', 'settings:read');
  });
});

describe('POST /api/v1/tools/shipping.delete_rate', () => {
  it('deletes the rate, audited with its state before', async () => {
    okResult(await setRate({}));
    expect(okResult(await deleteRate({ id: 'std', confirm: true }))).toEqual({ ok: true, id: 'std' });
    expect(await row('std')).toBeNull();
    const entry = await lastAudit(t, 'shipping.delete_rate', 'std');
    expect(entry).toMatchObject({ entityType: 'shipping_rate', before: { id: 'std', priceDkk: 4900 }, after: null });
    // Reverting the deletion brings the rate back as it was.
    okResult(await revert(t, key, entry.id));
    expect(await row('std')).toMatchObject({ title: 'Standard', priceDkk: 4900n, countryCode: null });
  });

  it.each(NOT_CONFIRMED)('refuses confirm %s with 422 confirmation_required', async (_name, extra) => {
    okResult(await setRate({}));
    expectProblem(await deleteRate({ id: 'std', ...extra }), 422, 'confirmation_required');
    expect(await row('std')).not.toBeNull();
  });

  it('previews with dryRun (no confirm needed) and deletes nothing', async () => {
    okResult(await setRate({}));
    expect((await deleteRate({ id: 'std', dryRun: true })).json()).toMatchObject({ dryRun: true, changes: [{ entityType: 'shipping_rate', entityId: 'std', after: null }] });
    expect(await row('std')).not.toBeNull();
  });

  it('answers 404 for an unknown rate', async () => {
    expectProblem(await deleteRate({ id: 'nope', confirm: true }), 404, 'not_found');
  });

  it('needs settings:write', async () => {
    await expectScopeEnforced(t, 'shipping.delete_rate', 'settings:write', { id: 'std', confirm: true });
  });
});

describe('the rates a UCP checkout session offers', () => {
  type Option = { id: string; title: string; totals: Array<{ type: string; amount: number }> };
  const options = (c: UcpCheckout) =>
    (c.fulfillment.methods[0].groups[0].options as Option[]).map((o) => ({ id: o.id, title: o.title, amount: o.totals.find((x) => x.type === 'total')?.amount }));
  const shipTo = (country: string, optionId?: string) => ({
    methods: [{
      type: 'shipping', destinations: [{ id: 'dest', ...ADDRESS, address_country: country }], selected_destination_id: 'dest',
      ...(optionId ? { groups: [{ selected_option_id: optionId }] } : {}),
    }],
  });
  const open = async (country: string, optionId?: string) =>
    checkout(await ucp(t, p, 'POST', '/ucp/checkout-sessions', { line_items: lines([['pot_ceramic', 1]]), fulfillment: shipTo(country, optionId) }), 201);

  it('quotes the rates set by the tool once the country is known, and no longer a deleted one', async () => {
    // No rates: the settings' one fee.
    expect((await open('DK')).fulfillment.methods[0].groups[0].options.map((o) => o.id)).toEqual(['standard']);
    okResult(await setRate({ id: 'std', title: 'Standard', priceDkk: 700 }));
    okResult(await setRate({ id: 'std-dk', title: 'Standard (Denmark)', countryCode: 'DK', priceDkk: 300 }));
    okResult(await setRate({ id: 'exp', title: 'Express', serviceLevel: 'express', priceDkk: 2000, freeForVariantIds: ['pot_ceramic'] }));
    const dk = await open('DK', 'std-dk');
    expect(options(dk)).toEqual([
      { id: 'exp', title: 'Express (Free)', amount: 0 },
      { id: 'std-dk', title: 'Standard (Denmark)', amount: 300 },
    ]);
    expect(dk.totals.find((x) => x.type === 'fulfillment')?.amount).toBe(300);
    expect(options(await open('SE')).map((o) => [o.id, o.amount])).toEqual([['exp', 0], ['std', 700]]);
    // Deleted: the session that chose it is quoted the rate for every country and has no option chosen any more.
    okResult(await deleteRate({ id: 'std-dk', confirm: true }));
    const after = checkout(await ucp(t, p, 'GET', `/ucp/checkout-sessions/${dk.id}`));
    expect(options(after).map((o) => o.id)).toEqual(['exp', 'std']);
    expect(after.fulfillment.methods[0].groups[0].selected_option_id).toBeNull();
    expect(after.totals.find((x) => x.type === 'fulfillment')).toBeUndefined();
  });
});
