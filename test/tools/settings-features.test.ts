import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { concurrently, expectScopeEnforced, lastAudit, okResult, revert } from '../helpers/calls.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['settings:read', 'settings:write', 'features:read', 'features:write', 'audit:revert']);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'ShopSettings', 'FeatureFlag', 'AuditEntry');
});

const DEFAULTS = { shopName: 'Agent Shop', currency: 'DKK', language: 'da', shippingFeeDkk: 4900, freeShippingThresholdDkk: 50_000, vatRateBasisPoints: 2500 };
const getSettings = async () => okResult<Record<string, unknown>>(await t.call('settings.get', {}, key));
const update = (body: Record<string, unknown>) => t.call('settings.update', body, key);

describe('POST /api/v1/tools/settings.get', () => {
  it('returns the defaults on a fresh database, and creates the row once under concurrency', async () => {
    const results = await concurrently(5, () => t.call('settings.get', {}, key));
    for (const r of results) expect(okResult(r)).toMatchObject(DEFAULTS);
    const result = await getSettings();
    expect(Object.keys(result).sort()).toEqual(['currency', 'freeShippingThresholdDkk', 'language', 'shippingFeeDkk', 'shopName', 'updatedAt', 'vatRateBasisPoints']);
    expect(result.updatedAt).toMatch(/Z$/);
    expect(await t.db.shopSettings.count()).toBe(1);
  });

  it('needs settings:read', async () => {
    await expectScopeEnforced(t, 'settings.get', 'settings:read');
  });
});

describe('POST /api/v1/tools/settings.update', () => {
  it('changes only the given fields', async () => {
    expect(okResult(await update({ shopName: 'Brillehuset', shippingFeeDkk: 3900 }))).toMatchObject({ ...DEFAULTS, shopName: 'Brillehuset', shippingFeeDkk: 3900 });
    expect(okResult(await update({ freeShippingThresholdDkk: null, vatRateBasisPoints: 0, currency: 'EUR' }))).toMatchObject({
      shopName: 'Brillehuset', shippingFeeDkk: 3900, freeShippingThresholdDkk: null, vatRateBasisPoints: 0, currency: 'EUR',
    });
    expect(await getSettings()).toMatchObject({ shopName: 'Brillehuset', currency: 'EUR', freeShippingThresholdDkk: null });
    expect(okResult(await update({ language: 'en-GB' }))).toMatchObject({ language: 'en-GB', shopName: 'Brillehuset' });
  });

  it('accepts the bounds: fee 0, VAT 10000 bp, amounts up to 2^53 − 1', async () => {
    okResult(await update({ shippingFeeDkk: 0, vatRateBasisPoints: 10_000, freeShippingThresholdDkk: 9007199254740991 }));
    expect(await getSettings()).toMatchObject({ shippingFeeDkk: 0, vatRateBasisPoints: 10_000, freeShippingThresholdDkk: 9007199254740991 });
  });

  it.each([
    ['a lower-case currency', { currency: 'dkk' }],
    ['a 4-letter currency', { currency: 'DKKK' }],
    ['a negative fee', { shippingFeeDkk: -1 }],
    ['a fractional fee', { shippingFeeDkk: 10.5 }],
    ['VAT over 100 %', { vatRateBasisPoints: 10_001 }],
    ['a negative VAT rate', { vatRateBasisPoints: -1 }],
    ['an empty shop name', { shopName: '' }],
    ['an unknown field', { id: 2 }],
  ])('refuses %s with 400', async (_name, body) => {
    expectProblem(await update(body), 400, 'invalid_request');
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it.each([
    ['a malformed language tag', { language: 'not a tag' }, 'invalid_language_tag'],
    ['a NUL in the shop name', { shopName: 'A\u0000B' }, 'invalid_text'],
  ])('refuses %s with 400 and its own code (valid under the schema, not a usable value)', async (_name, body, code) => {
    expectProblem(await update(body), 400, code);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it.each([['an empty update', {}], ['a dry run naming no setting', { dryRun: true }]])('refuses %s with 422 nothing_to_change', async (_name, body) => {
    expectProblem(await update(body), 422, 'nothing_to_change');
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('is audited and reversible with audit.revert', async () => {
    okResult(await update({ shippingFeeDkk: 1000 }));
    const entry = await lastAudit(t, 'settings.update', '1');
    expect(entry).toMatchObject({ entityType: 'settings' });
    expect(entry.before).toMatchObject({ shippingFeeDkk: 4900 });
    expect(entry.after).toMatchObject({ shippingFeeDkk: 1000 });
    okResult(await revert(t, key, entry.id));
    expect(await getSettings()).toMatchObject(DEFAULTS);
  });

  it('refuses to revert over a later change unless forced', async () => {
    okResult(await update({ shippingFeeDkk: 1000 }));
    const first = await lastAudit(t, 'settings.update', '1');
    okResult(await update({ shopName: 'Later' }));
    expectProblem(await revert(t, key, first.id), 422, 'revert_conflict');
    okResult(await revert(t, key, first.id, true));
    expect(await getSettings()).toMatchObject({ shippingFeeDkk: 4900, shopName: 'Agent Shop' });
  });

  it('persists nothing on a dry run', async () => {
    okResult(await update({ shopName: 'Before' }));
    await resetTables(t.db, 'AuditEntry');
    const res = await update({ shopName: 'Dry', dryRun: true });
    expect(res.json()).toMatchObject({ dryRun: true, result: { shopName: 'Dry' } });
    expect((await getSettings()).shopName).toBe('Before');
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('needs settings:write', async () => {
    await expectScopeEnforced(t, 'settings.update', 'settings:write', { shopName: 'X' });
  });
});

describe('POST /api/v1/tools/features.list and features.set', () => {
  const set = (body: Record<string, unknown>) => t.call('features.set', body, key);

  it('creates, changes and lists flags by key', async () => {
    expect(okResult(await set({ key: 'new-checkout', enabled: true, description: 'The new checkout flow' }))).toMatchObject({
      key: 'new-checkout', enabled: true, description: 'The new checkout flow',
    });
    okResult(await set({ key: 'ai.recommendations', enabled: false }));
    okResult(await set({ key: 'new-checkout', enabled: false }));
    const flags = okResult<Record<string, unknown>[]>(await t.call('features.list', {}, key));
    expect(flags.map((f) => [f.key, f.enabled, f.description])).toEqual([
      ['ai.recommendations', false, null],
      ['new-checkout', false, 'The new checkout flow'],
    ]);
    expect(Object.keys(flags[0]).sort()).toEqual(['description', 'enabled', 'key', 'updatedAt']);
  });

  it('clears the description with null', async () => {
    okResult(await set({ key: 'x', enabled: true, description: 'text' }));
    expect(okResult(await set({ key: 'x', enabled: true, description: null }))).toMatchObject({ description: null });
  });

  it.each([
    ['an upper-case key', { key: 'NewCheckout', enabled: true }],
    ['a key starting with a dot', { key: '.hidden', enabled: true }],
    ['a key with a space', { key: 'new checkout', enabled: true }],
    ['an empty key', { key: '', enabled: true }],
    ['a key over 100 characters', { key: 'a'.repeat(101), enabled: true }],
    ['enabled missing', { key: 'flag' }],
    ['enabled as a string', { key: 'flag', enabled: 'true' }],
  ])('refuses %s with 400', async (_name, body) => {
    expectProblem(await set(body), 400, 'invalid_request');
    expect(await t.db.featureFlag.count()).toBe(0);
  });

  it('is audited; reverting the creation removes the flag, reverting a change restores it', async () => {
    okResult(await set({ key: 'beta', enabled: true }));
    const created = await lastAudit(t, 'features.set', 'beta');
    expect(created).toMatchObject({ entityType: 'feature', before: null });
    okResult(await set({ key: 'beta', enabled: false }));
    const changed = await lastAudit(t, 'features.set', 'beta');
    expect(changed.before).toMatchObject({ enabled: true });
    okResult(await revert(t, key, changed.id));
    expect((await t.db.featureFlag.findUniqueOrThrow({ where: { key: 'beta' } })).enabled).toBe(true);
    okResult(await revert(t, key, created.id));
    expect(await t.db.featureFlag.count()).toBe(0);
  });

  it('persists nothing on a dry run', async () => {
    expect((await set({ key: 'dry', enabled: true, dryRun: true })).json()).toMatchObject({ dryRun: true, result: { key: 'dry' } });
    expect(await t.db.featureFlag.count()).toBe(0);
  });

  it('needs features:read and features:write', async () => {
    await expectScopeEnforced(t, 'features.list', 'features:read');
    await expectScopeEnforced(t, 'features.set', 'features:write', { key: 'x', enabled: true });
  });
});
