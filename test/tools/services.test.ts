import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/registry/scopes.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { lastAudit, okResult, revert } from '../helpers/calls.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key();
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'ServiceOffering', 'AuditEntry');
});

const BASE = { title: 'Eye exam', body: 'A full eye examination.' };
const create = (body: Record<string, unknown>) => t.call('services.create', { ...BASE, ...body }, key);
const update = (slug: string, patch: Record<string, unknown>) => t.call('services.update', { slug, patch }, key);
const serviceRow = (slug: string) => t.db.serviceOffering.findUnique({ where: { slug } });

describe('POST /api/v1/tools/services.create', () => {
  it('creates a published service with defaults when only title and body are given', async () => {
    const result = okResult(await create({}));
    const row = await serviceRow('eye-exam');
    expect(result).toEqual({ id: row!.id, slug: 'eye-exam', status: 'published', publicUrl: '/services/eye-exam' });
    expect(row).toMatchObject({
      title: 'Eye exam', body: 'A full eye examination.', shortDescription: null, priceString: null, heroImage: null,
      features: [], showInNav: false, navOrder: 0n, status: 'published',
    });
  });

  it('stores every optional field', async () => {
    const full = {
      slug: 'frame-fitting', shortDescription: 'Free adjustment', priceString: 'from 0 kr.', heroImage: 'https://images.example.com/fit.jpg',
      features: ['Any brand', 'While you wait'], showInNav: true, navOrder: 9007199254740991, status: 'draft',
    };
    expect(okResult(await create(full))).toMatchObject({ slug: 'frame-fitting', status: 'draft' });
    expect(await serviceRow('frame-fitting')).toMatchObject({ ...full, navOrder: 9007199254740991n });
  });

  it('creates a draft that stays off the public listing', async () => {
    expect(okResult(await create({ status: 'draft' }))).toMatchObject({ status: 'draft' });
    expect((await serviceRow('eye-exam'))!.status).toBe('draft');
    expect(okResult<{ services: unknown[] }>(await t.call('site.list_pages', {})).services).toEqual([]);
  });

  it('derives the slug from the title with accents folded', async () => {
    expect(okResult(await create({ title: 'Brilletilpasning på Ærø & Øjne' }))).toMatchObject({ slug: 'brilletilpasning-paa-aero-ojne' });
    expect(await serviceRow('brilletilpasning-paa-aero-ojne')).not.toBeNull();
  });

  it('makes derived slugs unique with -2, -3 …', async () => {
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push(okResult<{ slug: string }>(await create({})).slug);
    expect(slugs).toEqual(['eye-exam', 'eye-exam-2', 'eye-exam-3']);
    expect((await t.db.serviceOffering.findMany({ orderBy: { slug: 'asc' } })).map((s) => s.slug)).toEqual(slugs);
  });

  it('derives a pattern-safe slug from a title without latin letters', async () => {
    expect(okResult(await create({ title: '眼科检查' }))).toMatchObject({ slug: 'service' });
    expect(okResult(await create({ title: '眼科检查' }))).toMatchObject({ slug: 'service-2' });
  });

  it('refuses an explicit slug that is taken (409 conflict) and stores nothing', async () => {
    okResult(await create({ slug: 'eye-exam' }));
    expectProblem(await create({ slug: 'eye-exam', title: 'Another exam' }), 409, 'conflict');
    expect(await t.db.serviceOffering.count()).toBe(1);
    expect((await serviceRow('eye-exam'))!.title).toBe('Eye exam');
  });

  it('returns an absolute publicUrl when a public base URL is configured', async () => {
    const other = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://shop.example.com/' } });
    try {
      const res = await other.call('services.create', BASE, await other.key(['pages:write']));
      expect(okResult(res)).toMatchObject({ publicUrl: 'https://shop.example.com/services/eye-exam' });
    } finally {
      await other.close();
    }
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an uppercase slug', { slug: 'Eye-Exam' }, /^slug:/],
    ['a one-character slug', { slug: 'e' }, /^slug:/],
    ['a slug with an underscore', { slug: 'eye_exam' }, /^slug:/],
    ['a slug with an accent', { slug: 'øje' }, /^slug:/],
    ['a title of 1 character', { title: 'E' }, /^title:/],
    ['a title over 200 characters', { title: 'x'.repeat(201) }, /^title:/],
    ['a missing title', { title: undefined }, /^title:/],
    ['an empty body', { body: '' }, /^body:/],
    ['a missing body', { body: undefined }, /^body:/],
    ['an empty shortDescription', { shortDescription: '' }, /^shortDescription:/],
    ['a shortDescription over 500 characters', { shortDescription: 'x'.repeat(501) }, /^shortDescription:/],
    ['an empty priceString', { priceString: '' }, /^priceString:/],
    ['a priceString over 100 characters', { priceString: 'x'.repeat(101) }, /^priceString:/],
    ['a numeric priceString', { priceString: 495 }, /^priceString:/],
    ['an empty feature', { features: ['ok', ''] }, /^features\.1:/],
    ['features that are not strings', { features: [1] }, /^features\.0:/],
    ['a fractional navOrder', { navOrder: 1.5 }, /^navOrder:/],
    ['a navOrder beyond 2^53-1', { navOrder: 9007199254740992 }, /^navOrder:/],
    ['a string showInNav', { showInNav: 'true' }, /^showInNav:/],
    ['an unknown status', { status: 'archived' }, /^status:/],
    ['an unknown field', { publicUrl: '/x' }, /unknown field\(s\) "publicUrl"/],
  ])('refuses %s (400) and stores nothing', async (_label, body, detail) => {
    expect(expectProblem(await create(body), 400, 'invalid_request').detail).toMatch(detail);
    expect(await t.db.serviceOffering.count()).toBe(0);
  });

  it('accepts fields at their length bounds', async () => {
    okResult(await create({ slug: 'ab', title: 'Ab', body: 'x', shortDescription: 'x'.repeat(500), priceString: 'x'.repeat(100) }));
    okResult(await create({ title: 'x'.repeat(200), shortDescription: 'x', priceString: 'x', navOrder: -9007199254740991 }));
    expect(await t.db.serviceOffering.count()).toBe(2);
  });

  it('dryRun returns the changes and persists nothing', async () => {
    const body = (await create({ dryRun: true })).json();
    expect(body).toMatchObject({ ok: true, dryRun: true, result: { slug: 'eye-exam', status: 'published' } });
    expect(body.changes).toEqual([expect.objectContaining({ entityType: 'service', before: null })]);
    expect(await t.db.serviceOffering.count()).toBe(0);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('writes an audit entry that audit.revert refuses (only updates are reversible)', async () => {
    const { id } = okResult<{ id: string }>(await create({}));
    const entry = await lastAudit(t, 'services.create', id);
    expect(entry).toMatchObject({ entityType: 'service', before: null, after: expect.objectContaining({ slug: 'eye-exam', navOrder: 0 }) });
    expectProblem(await revert(t, key, entry.id), 422, 'not_revertible');
    expect(await serviceRow('eye-exam')).not.toBeNull();
  });
});

describe('POST /api/v1/tools/services.update', () => {
  it('applies the patch and leaves other fields unchanged', async () => {
    const { id } = okResult<{ id: string }>(await create({ shortDescription: 'Old', features: ['a'] }));
    expect(okResult(await update('eye-exam', { title: 'Eye examination', navOrder: 5, showInNav: true, priceString: '395 kr.' }))).toEqual({ id, slug: 'eye-exam' });
    expect(await serviceRow('eye-exam')).toMatchObject({
      id, title: 'Eye examination', navOrder: 5n, showInNav: true, priceString: '395 kr.', shortDescription: 'Old', features: ['a'], body: BASE.body, status: 'published',
    });
  });

  it('publishes a draft through patch.status, which then appears on the public site', async () => {
    okResult(await create({ status: 'draft' }));
    expectProblem(await t.call('site.get_page', { slug: 'eye-exam', kind: 'service' }), 404, 'not_found');
    okResult(await update('eye-exam', { status: 'published' }));
    expect((await serviceRow('eye-exam'))!.status).toBe('published');
    expect(okResult(await t.call('site.get_page', { slug: 'eye-exam', kind: 'service' }))).toMatchObject({ title: 'Eye exam' });
  });

  it('takes a published service back to draft', async () => {
    okResult(await create({}));
    okResult(await update('eye-exam', { status: 'draft' }));
    expect((await serviceRow('eye-exam'))!.status).toBe('draft');
  });

  it('clears nullable fields with null and replaces features and heroImage', async () => {
    okResult(await create({ shortDescription: 'Short', priceString: '1 kr.', heroImage: 'https://images.example.com/a.jpg', features: ['a', 'b'] }));
    okResult(await update('eye-exam', { shortDescription: null, priceString: null, heroImage: null, features: ['c'] }));
    expect(await serviceRow('eye-exam')).toMatchObject({ shortDescription: null, priceString: null, heroImage: null, features: ['c'] });
  });

  it('refuses a slug change with 422 slug_immutable and changes nothing', async () => {
    okResult(await create({}));
    expectProblem(await update('eye-exam', { slug: 'eye-test', title: 'Eye test' }), 422, 'slug_immutable');
    expect(await serviceRow('eye-exam')).toMatchObject({ title: 'Eye exam' });
    expect(await serviceRow('eye-test')).toBeNull();
  });

  it.each([
    ['a heroImage that is not a URI', 'hero.jpg'],
    ['a javascript: heroImage', 'javascript:alert(1)'],
  ])('refuses %s (400 invalid_image_url: valid under the schema, refused by the URL rule) and stores nothing', async (_label, heroImage) => {
    expect(expectProblem(await create({ heroImage }), 400, 'invalid_image_url').detail).toMatch(/^heroImage:/);
    expect(await t.db.serviceOffering.count()).toBe(0);
  });

  it('accepts patch.slug equal to the current slug', async () => {
    okResult(await create({}));
    okResult(await update('eye-exam', { slug: 'eye-exam', title: 'Eye test' }));
    expect((await serviceRow('eye-exam'))!.title).toBe('Eye test');
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an empty patch', {}, /^patch: must contain at least one field/],
    ['a title of 1 character', { title: 'E' }, /^patch\.title:/],
    ['an empty body', { body: '' }, /^patch\.body:/],
    ['a null title', { title: null }, /^patch\.title:/],
    ['a shortDescription over 500 characters', { shortDescription: 'x'.repeat(501) }, /^patch\.shortDescription:/],
    ['a priceString over 100 characters', { priceString: 'x'.repeat(101) }, /^patch\.priceString:/],
    ['an unknown status', { status: 'live' }, /^patch\.status:/],
    ['a fractional navOrder', { navOrder: 0.5 }, /^patch\.navOrder:/],
    ['an unknown patch field', { createdAt: '2020-01-01T00:00:00Z' }, /^patch: unknown field\(s\) "createdAt"/],
  ])('refuses %s (400) and changes nothing', async (_label, patch, detail) => {
    okResult(await create({}));
    const before = await serviceRow('eye-exam');
    expect(expectProblem(await update('eye-exam', patch), 400, 'invalid_request').detail).toMatch(detail);
    expect(await serviceRow('eye-exam')).toEqual(before);
  });

  it('refuses a patch holding only the current slug (422 nothing_to_change) and changes nothing', async () => {
    okResult(await create({}));
    const before = await serviceRow('eye-exam');
    expect(expectProblem(await update('eye-exam', { slug: 'eye-exam' }), 422, 'nothing_to_change').detail).toMatch(/^patch: name at least one field/);
    expect(await serviceRow('eye-exam')).toEqual(before);
  });

  it('answers 404 not_found for an unknown slug', async () => {
    expectProblem(await update('nope', { title: 'Nope' }), 404, 'not_found');
  });

  it('dryRun returns the changes and persists nothing', async () => {
    okResult(await create({ status: 'draft' }));
    await resetTables(t.db, 'AuditEntry');
    const dry = (await t.call('services.update', { slug: 'eye-exam', patch: { status: 'published' }, dryRun: true }, key)).json();
    expect(dry).toMatchObject({ ok: true, dryRun: true, result: { slug: 'eye-exam' } });
    expect(dry.changes).toEqual([expect.objectContaining({ before: expect.objectContaining({ status: 'draft' }), after: expect.objectContaining({ status: 'published' }) })]);
    expect((await serviceRow('eye-exam'))!.status).toBe('draft');
    expect(await t.db.auditEntry.count()).toBe(0);
  });
});

describe('POST /api/v1/tools/audit.revert on services.update entries', () => {
  it('restores the previous state, refuses a second revert, and reverts later changes only with force', async () => {
    const { id } = okResult<{ id: string }>(await create({ status: 'draft', navOrder: 3, features: ['a'] }));
    okResult(await update('eye-exam', { status: 'published', navOrder: 7, features: ['b'], title: 'Eye test' }));
    const entry = await lastAudit(t, 'services.update', id);
    expect(entry).toMatchObject({ entityType: 'service', before: expect.objectContaining({ status: 'draft' }) });

    okResult(await revert(t, key, entry.id));
    expect(await serviceRow('eye-exam')).toMatchObject({ id, status: 'draft', navOrder: 3n, features: ['a'], title: 'Eye exam' });
    expectProblem(await revert(t, key, entry.id), 422, 'revert_conflict');

    okResult(await update('eye-exam', { title: 'Second title' }));
    const second = await lastAudit(t, 'services.update', id);
    okResult(await update('eye-exam', { title: 'Third title' }));
    expectProblem(await revert(t, key, second.id), 422, 'revert_conflict');
    expect((await serviceRow('eye-exam'))!.title).toBe('Third title');
    okResult(await revert(t, key, second.id, true));
    expect((await serviceRow('eye-exam'))!.title).toBe('Eye exam');
  });
});

describe('POST /api/v1/tools/services.list', () => {
  it('returns every service with the full record shape, drafts included, in navOrder', async () => {
    okResult(await create({ slug: 'second', navOrder: 2 }));
    okResult(await create({ slug: 'draft-one', navOrder: 1, status: 'draft', features: ['x'], heroImage: 'https://images.example.com/d.jpg' }));
    okResult(await create({ slug: 'third', navOrder: 2 }));
    const list = okResult<Record<string, unknown>[]>(await t.call('services.list', {}, key));
    expect(list.map((s) => s.slug)).toEqual(['draft-one', 'second', 'third']);
    const row = await serviceRow('draft-one');
    expect(list[0]).toEqual({
      id: row!.id, slug: 'draft-one', title: 'Eye exam', body: BASE.body, shortDescription: null, priceString: null,
      heroImage: 'https://images.example.com/d.jpg', features: ['x'], showInNav: false, navOrder: 1, status: 'draft',
      publicUrl: '/services/draft-one', createdAt: row!.createdAt.toISOString(), updatedAt: row!.updatedAt.toISOString(),
    });
  });

  it('filters by status', async () => {
    okResult(await create({ slug: 'live' }));
    okResult(await create({ slug: 'hidden', status: 'draft' }));
    expect(okResult<{ slug: string }[]>(await t.call('services.list', { status: 'draft' }, key)).map((s) => s.slug)).toEqual(['hidden']);
    expect(okResult<{ slug: string }[]>(await t.call('services.list', { status: 'published' }, key)).map((s) => s.slug)).toEqual(['live']);
    expectProblem(await t.call('services.list', { status: 'gone' }, key), 400, 'invalid_request');
  });
});

describe('services.* authentication and scopes', () => {
  const calls: [string, Scope, Record<string, unknown>][] = [
    ['services.list', 'pages:read', {}],
    ['services.create', 'pages:write', { ...BASE, slug: 'new-service' }],
    ['services.update', 'pages:write', { slug: 'eye-exam', patch: { title: 'Changed' } }],
  ];

  it.each(calls)('%s answers 401 without a key', async (name, _scope, body) => {
    okResult(await create({}));
    expectProblem(await t.call(name, body), 401, 'unauthorized');
    expect(await t.db.serviceOffering.findMany({ select: { slug: true, title: true } })).toEqual([{ slug: 'eye-exam', title: 'Eye exam' }]);
  });

  it.each(calls)('%s answers 403 with a key lacking %s', async (name, scope, body) => {
    okResult(await create({}));
    expect(expectProblem(await t.call(name, body, await t.key(SCOPES.filter((s) => s !== scope))), 403, 'insufficient_scope').detail).toContain(scope);
    expect(await t.db.serviceOffering.findMany({ select: { slug: true, title: true } })).toEqual([{ slug: 'eye-exam', title: 'Eye exam' }]);
  });

  it.each(calls)('%s works with a key holding only %s', async (name, scope, body) => {
    okResult(await create({}));
    okResult(await t.call(name, body, await t.key([scope])));
  });
});
