import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { expectScopeEnforced, lastAudit, okResult, revert } from '../helpers/calls.ts';
import { makeDiscount } from '../helpers/factories.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key(['discounts:read', 'discounts:write', 'audit:revert']);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'DiscountCode', 'AuditEntry');
});

const create = (body: Record<string, unknown>) => t.call('discounts.create', { type: 'percent', value: 10, ...body }, key);
const toggle = (body: Record<string, unknown>) => t.call('discounts.toggle', body, key);
const row = (code: string) => t.db.discountCode.findUnique({ where: { code } });
const future = () => new Date(Date.now() + 86_400_000).toISOString();

describe('POST /api/v1/tools/discounts.create', () => {
  it('stores and returns the code in upper case', async () => {
    const result = okResult<{ id: string; code: string }>(await create({ code: 'summer-25' }));
    const stored = await row('SUMMER-25');
    expect(result).toEqual({ id: stored!.id, code: 'SUMMER-25' });
    expect(stored).toMatchObject({ type: 'percent', value: 10n, usageCount: 0n, usageLimit: null, validUntil: null, active: true });
  });

  it('creates a fixed discount with validUntil and usageLimit', async () => {
    const until = future();
    okResult(await create({ code: 'FIXED50', type: 'fixed', value: 5000, validUntil: until, usageLimit: 3 }));
    expect(await row('FIXED50')).toMatchObject({ type: 'fixed', value: 5000n, usageLimit: 3n, validUntil: new Date(until) });
  });

  it('accepts the bounds: percent 1 and 100, fixed 1 øre and 2^53 − 1, usageLimit 1', async () => {
    okResult(await create({ code: 'PCT1', value: 1 }));
    okResult(await create({ code: 'PCT100', value: 100, usageLimit: 1 }));
    okResult(await create({ code: 'FIX1', type: 'fixed', value: 1 }));
    okResult(await create({ code: 'FIXMAX', type: 'fixed', value: 9007199254740991 }));
    expect((await row('FIXMAX'))!.value).toBe(9007199254740991n);
  });

  it('refuses a code that exists in any letter case with 409 conflict', async () => {
    okResult(await create({ code: 'WELCOME' }));
    expectProblem(await create({ code: 'welcome' }), 409, 'conflict');
    expectProblem(await create({ code: 'WeLcOmE', type: 'fixed', value: 100 }), 409, 'conflict');
    expect(await t.db.discountCode.count()).toBe(1);
  });

  it('lets exactly one of 10 concurrent creations of one code win', async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ code: i % 2 ? 'race' : 'RACE' })));
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of responses.filter((x) => x.statusCode !== 200)) expectProblem(r, 409, 'conflict');
  });

  it.each([
    ['a 2-character code', { code: 'AB' }],
    ['a code with spaces', { code: 'TEN OFF' }],
    ['a code over 64 characters', { code: 'A'.repeat(65) }],
    ['percent 0', { code: 'ZERO', value: 0 }],
    ['a fractional percent', { code: 'FRAC', value: 12.5 }],
    ['fixed 0 øre', { code: 'FREE0', type: 'fixed', value: 0 }],
    ['a negative fixed value', { code: 'NEG', type: 'fixed', value: -100 }],
    ['value as a string', { code: 'STR', value: '10' }],
    ['an unknown type', { code: 'BOGO', type: 'bogo' }],
    ['usageLimit 0', { code: 'LIM0', usageLimit: 0 }],
    ['a validUntil that is no timestamp', { code: 'DATE', validUntil: 'tomorrow' }],
    ['mass assignment of usageCount', { code: 'MASS', usageCount: 5 }],
  ])('refuses %s with 400', async (_name, body) => {
    expectProblem(await create(body), 400, 'invalid_request');
    expect(await t.db.discountCode.count()).toBe(0);
  });

  it.each([
    ['percent 101', { code: 'TOOMUCH', value: 101 }, 'value_out_of_range'],
    ['a past validUntil', { code: 'PAST', validUntil: '2020-01-01T00:00:00Z' }, 'date_not_in_future'],
  ])('refuses %s (valid under the schema, against a rule between fields or with the clock) with 422', async (_name, body, code) => {
    expectProblem(await create(body), 422, code);
    expect(await t.db.discountCode.count()).toBe(0);
  });

  it('writes an audit entry', async () => {
    const { id } = okResult<{ id: string }>(await create({ code: 'AUDITME' }));
    const entry = await lastAudit(t, 'discounts.create', id);
    expect(entry.before).toBeNull();
    expect(entry.after).toMatchObject({ id, code: 'AUDITME', type: 'percent', value: 10, active: true });
  });

  it('persists nothing on a dry run', async () => {
    const res = await create({ code: 'DRY', dryRun: true });
    expect(res.json()).toMatchObject({ ok: true, dryRun: true, result: { code: 'DRY' } });
    expect(await t.db.discountCode.count()).toBe(0);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('needs discounts:write', async () => {
    await expectScopeEnforced(t, 'discounts.create', 'discounts:write', { code: 'NOPE', type: 'percent', value: 5 });
  });
});

describe('POST /api/v1/tools/discounts.list', () => {
  it('lists codes newest first with every field and usageCount', async () => {
    const old = await makeDiscount(t.db, { code: 'OLD', type: 'fixed', value: 500, usageLimit: 10, usageCount: 4 });
    await t.db.discountCode.update({ where: { id: old.id }, data: { createdAt: new Date('2026-01-01T00:00:00Z') } });
    const until = new Date(Date.now() + 3_600_000);
    const fresh = await makeDiscount(t.db, { code: 'NEW', validUntil: until, active: false });
    const result = okResult<Record<string, unknown>[]>(await t.call('discounts.list', {}, key));
    expect(result).toEqual([
      { id: fresh.id, code: 'NEW', type: 'percent', value: 10, validUntil: until.toISOString(), usageLimit: null, usageCount: 0, active: false },
      { id: old.id, code: 'OLD', type: 'fixed', value: 500, validUntil: null, usageLimit: 10, usageCount: 4, active: true },
    ]);
  });

  it('filters with onlyActive', async () => {
    await makeDiscount(t.db, { code: 'ON' });
    await makeDiscount(t.db, { code: 'OFF', active: false });
    const codes = async (body: Record<string, unknown>) => okResult<{ code: string }[]>(await t.call('discounts.list', body, key)).map((d) => d.code).sort();
    expect(await codes({ onlyActive: true })).toEqual(['ON']);
    expect(await codes({ onlyActive: false })).toEqual(['OFF', 'ON']);
    expect(await codes({})).toEqual(['OFF', 'ON']);
  });

  it('returns 50 by default and at most limit', async () => {
    await t.db.discountCode.createMany({ data: Array.from({ length: 55 }, (_, i) => ({ code: `BULK${i}`, type: 'percent', value: 5n })) });
    expect(okResult<unknown[]>(await t.call('discounts.list', {}, key))).toHaveLength(50);
    expect(okResult<unknown[]>(await t.call('discounts.list', { limit: 100 }, key))).toHaveLength(55);
    expect(okResult<unknown[]>(await t.call('discounts.list', { limit: 1 }, key))).toHaveLength(1);
  });

  it.each([[{ limit: 0 }], [{ limit: 101 }], [{ limit: '5' }], [{ onlyActive: 'yes' }], [{ active: true }]])('refuses %j with 400', async (body) => {
    expectProblem(await t.call('discounts.list', body, key), 400, 'invalid_request');
  });

  it('needs discounts:read', async () => {
    await expectScopeEnforced(t, 'discounts.list', 'discounts:read');
  });
});

describe('POST /api/v1/tools/discounts.toggle', () => {
  it('flips active when active is omitted', async () => {
    await makeDiscount(t.db, { code: 'FLIP' });
    expect(okResult(await toggle({ code: 'FLIP' }))).toEqual({ code: 'FLIP', active: false });
    expect(okResult(await toggle({ code: 'FLIP' }))).toEqual({ code: 'FLIP', active: true });
    expect((await row('FLIP'))!.active).toBe(true);
  });

  it('sets the given value, also when it already has it', async () => {
    await makeDiscount(t.db, { code: 'SETME' });
    expect(okResult(await toggle({ code: 'SETME', active: true }))).toEqual({ code: 'SETME', active: true });
    expect(okResult(await toggle({ code: 'SETME', active: false }))).toEqual({ code: 'SETME', active: false });
    expect(okResult(await toggle({ code: 'SETME', active: false }))).toEqual({ code: 'SETME', active: false });
    expect((await row('SETME'))!.active).toBe(false);
  });

  it('matches the code case-insensitively', async () => {
    await makeDiscount(t.db, { code: 'MIXED' });
    expect(okResult(await toggle({ code: 'mIxEd', active: false }))).toEqual({ code: 'MIXED', active: false });
  });

  it('applies 10 concurrent flips one after the other', async () => {
    await makeDiscount(t.db, { code: 'BUSY' });
    const responses = await Promise.all(Array.from({ length: 10 }, () => toggle({ code: 'BUSY' })));
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    expect((await row('BUSY'))!.active).toBe(true);
  });

  it('answers 404 for an unknown code and 400 for a bad body', async () => {
    expectProblem(await toggle({ code: 'NOSUCH' }), 404, 'not_found');
    expectProblem(await toggle({ code: '' }), 400, 'invalid_request');
    expectProblem(await toggle({ code: 'X', active: 'false' }), 400, 'invalid_request');
  });

  it('is reversible with audit.revert, even after the code was used since', async () => {
    const code = await makeDiscount(t.db, { code: 'UNDO' });
    okResult(await toggle({ code: 'UNDO' }));
    const entry = await lastAudit(t, 'discounts.toggle', code.id);
    expect(entry.before).toMatchObject({ code: 'UNDO', active: true });
    expect(entry.after).toMatchObject({ code: 'UNDO', active: false });
    // A checkout counting a use is not an edit of the code.
    await t.db.discountCode.update({ where: { id: code.id }, data: { usageCount: 7n } });
    okResult(await revert(t, key, entry.id));
    expect(await row('UNDO')).toMatchObject({ active: true, usageCount: 7n });
  });

  it('refuses to revert a toggle once the code\'s terms changed since, unless forced', async () => {
    const code = await makeDiscount(t.db, { code: 'LATER' });
    okResult(await toggle({ code: 'LATER' }));
    const first = await lastAudit(t, 'discounts.toggle', code.id);
    await t.db.discountCode.update({ where: { id: code.id }, data: { value: 20n } });
    expectProblem(await revert(t, key, first.id), 422, 'revert_conflict');
    okResult(await revert(t, key, first.id, true));
    expect(await row('LATER')).toMatchObject({ active: true, value: 10n });
  });

  it('persists nothing on a dry run', async () => {
    await makeDiscount(t.db, { code: 'DRYRUN' });
    expect((await toggle({ code: 'DRYRUN', dryRun: true })).json()).toMatchObject({ dryRun: true, result: { active: false } });
    expect((await row('DRYRUN'))!.active).toBe(true);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('needs discounts:write', async () => {
    await expectScopeEnforced(t, 'discounts.toggle', 'discounts:write', { code: 'X' });
  });
});
