import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/registry/scopes.ts';
import { SCOPES } from '../../src/registry/scopes.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { resetTables } from '../helpers/database.ts';
import { lastAudit, okResult, revert } from '../helpers/calls.ts';
import { expectProblem, NOT_CONFIRMED } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.key();
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'Page', 'AuditEntry');
});

const BODY = '## Hello\n\nThis is the body of the page.';
const upsert = (body: Record<string, unknown>) => t.call('pages.upsert', { title: 'About us', body: BODY, ...body }, key);
const pageRow = (slug: string) => t.db.page.findUnique({ where: { slug } });

describe('POST /api/v1/tools/pages.upsert', () => {
  it('creates a published page when status is omitted', async () => {
    const result = okResult(await upsert({ slug: 'about' }));
    const row = await pageRow('about');
    expect(result).toEqual({ id: row!.id, slug: 'about', title: 'About us', status: 'published' });
    expect(row).toMatchObject({ title: 'About us', body: BODY, status: 'published', layout: null });
  });

  it('creates a page with the given status', async () => {
    expect(okResult(await upsert({ slug: 'draft-page', status: 'draft' }))).toMatchObject({ status: 'draft' });
    expect((await pageRow('draft-page'))!.status).toBe('draft');
  });

  it('keeps the status of an existing page when status is omitted, and updates title and body', async () => {
    const created = okResult<{ id: string }>(await upsert({ slug: 'about', status: 'draft' }));
    const updated = okResult(await upsert({ slug: 'about', title: 'About the shop', body: 'A brand new body text.' }));
    expect(updated).toEqual({ id: created.id, slug: 'about', title: 'About the shop', status: 'draft' });
    expect(await pageRow('about')).toMatchObject({ id: created.id, title: 'About the shop', body: 'A brand new body text.', status: 'draft' });
    expect(await t.db.page.count()).toBe(1);
  });

  it('sets the status of an existing page when status is given (publishing a draft)', async () => {
    await upsert({ slug: 'about', status: 'draft' });
    expect(okResult(await upsert({ slug: 'about', status: 'published' }))).toMatchObject({ status: 'published' });
    expect((await pageRow('about'))!.status).toBe('published');
    expect(okResult(await upsert({ slug: 'about', status: 'draft' }))).toMatchObject({ status: 'draft' });
    expect((await pageRow('about'))!.status).toBe('draft');
  });

  it('keeps the layout of an existing page', async () => {
    await upsert({ slug: 'about' });
    await t.call('pages.set_layout', { slug: 'about', layout: { sections: [{ id: 's', key: 'spacer' }] }, confirm: true }, key);
    await upsert({ slug: 'about', title: 'Renamed page' });
    expect((await pageRow('about'))!.layout).toEqual({ sections: [{ id: 's', key: 'spacer', enabled: true, props: { size: 'md' } }] });
  });

  it('writes an audit entry with the state before and after', async () => {
    const { id } = okResult<{ id: string }>(await upsert({ slug: 'about' }));
    const created = await lastAudit(t, 'pages.upsert', id);
    expect(created).toMatchObject({ entityType: 'page', entityId: id, before: null });
    expect(created.after).toMatchObject({ id, slug: 'about', status: 'published' });
    await upsert({ slug: 'about', title: 'Second title' });
    const updated = await lastAudit(t, 'pages.upsert', id);
    expect(updated.before).toMatchObject({ title: 'About us' });
    expect(updated.after).toMatchObject({ title: 'Second title' });
  });

  it.each([
    ['uppercase', 'About'],
    ['one character', 'a'],
    ['underscore', 'about_us'],
    ['space', 'about us'],
    ['accent', 'café'],
    ['slash', 'info/about'],
    ['empty', ''],
    ['over 120 characters', 'a'.repeat(121)],
    ['a number', 42],
  ])('refuses a slug with %s (400) and stores nothing', async (_label, slug) => {
    expect(expectProblem(await upsert({ slug }), 400, 'invalid_request').detail).toMatch(/^slug:/);
    expect(await t.db.page.count()).toBe(0);
  });

  it('accepts slugs at the length bounds', async () => {
    okResult(await upsert({ slug: 'ab' }));
    okResult(await upsert({ slug: 'a'.repeat(120) }));
    expect(await t.db.page.count()).toBe(2);
  });

  it.each([
    ['title of 1 character', { title: 'A' }, /^title:/],
    ['title over 200 characters', { title: 'x'.repeat(201) }, /^title:/],
    ['body under 10 characters', { body: '123456789' }, /^body:/],
    ['body over 100000 characters', { body: 'x'.repeat(100_001) }, /^body:/],
    ['unknown status', { status: 'archived' }, /^status:/],
    ['missing title', { title: undefined }, /^title:/],
    ['unknown field', { layout: null }, /unknown field\(s\) "layout"/],
    ['mass-assigned id', { id: 'x' }, /unknown field\(s\) "id"/],
  ])('refuses a %s (400) and stores nothing', async (_label, patch, detail) => {
    expect(expectProblem(await upsert({ slug: 'about', ...patch }), 400, 'invalid_request').detail).toMatch(detail);
    expect(await t.db.page.count()).toBe(0);
  });

  it('refuses a title with a NUL byte (400 invalid_text) and stores nothing', async () => {
    expect(expectProblem(await upsert({ slug: 'about', title: 'Ab\u0000c' }), 400, 'invalid_text').detail).toMatch(/^title:/);
    expect(await t.db.page.count()).toBe(0);
  });

  it('accepts title and body at their lower bounds', async () => {
    expect(okResult(await upsert({ slug: 'about', title: 'Ab', body: '1234567890' }))).toMatchObject({ title: 'Ab' });
  });

  it('dryRun returns the changes and persists nothing', async () => {
    const res = await upsert({ slug: 'about', dryRun: true });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ ok: true, dryRun: true, result: { slug: 'about', status: 'published' } });
    expect(body.changes).toEqual([expect.objectContaining({ entityType: 'page', before: null, after: expect.objectContaining({ slug: 'about' }) })]);
    expect(await t.db.page.count()).toBe(0);
    expect(await t.db.auditEntry.count()).toBe(0);
  });
});

describe('POST /api/v1/tools/pages.list', () => {
  it('lists every page, drafts included, ordered by slug, with exactly the declared fields', async () => {
    await upsert({ slug: 'shipping' });
    await upsert({ slug: 'about', status: 'draft' });
    const list = okResult<Record<string, unknown>[]>(await t.call('pages.list', {}, key));
    expect(list.map((p) => [p.slug, p.status])).toEqual([['about', 'draft'], ['shipping', 'published']]);
    const row = await pageRow('about');
    expect(list[0]).toEqual({ id: row!.id, slug: 'about', title: 'About us', status: 'draft', updatedAt: row!.updatedAt.toISOString() });
    expect(list[0].updatedAt).toMatch(/Z$/);
  });

  it('returns an empty array when there are no pages', async () => {
    expect(okResult(await t.call('pages.list', {}, key))).toEqual([]);
  });

  it('refuses unknown fields', async () => {
    expectProblem(await t.call('pages.list', { status: 'draft' }, key), 400, 'invalid_request');
  });
});

describe('POST /api/v1/tools/pages.delete', () => {
  it.each(NOT_CONFIRMED)('refuses confirm %s with 422 confirmation_required and keeps the page', async (_label, confirm) => {
    await upsert({ slug: 'about' });
    expectProblem(await t.call('pages.delete', { slug: 'about', ...confirm }, key), 422, 'confirmation_required');
    expect(await pageRow('about')).not.toBeNull();
  });

  it('deletes the page with confirm: true', async () => {
    const { id } = okResult<{ id: string }>(await upsert({ slug: 'about' }));
    expect(okResult(await t.call('pages.delete', { slug: 'about', confirm: true }, key))).toEqual({ ok: true, slug: 'about' });
    expect(await pageRow('about')).toBeNull();
    const entry = await lastAudit(t, 'pages.delete', id);
    expect(entry.after).toBeNull();
    expect(entry.before).toMatchObject({ id, slug: 'about' });
  });

  it('dryRun returns the changes and persists nothing (no confirm needed)', async () => {
    await upsert({ slug: 'about' });
    await resetTables(t.db, 'AuditEntry');
    const body = (await t.call('pages.delete', { slug: 'about', dryRun: true }, key)).json();
    expect(body).toMatchObject({ ok: true, dryRun: true, result: { ok: true, slug: 'about' } });
    expect(body.changes).toEqual([expect.objectContaining({ entityType: 'page', after: null })]);
    expect(await pageRow('about')).not.toBeNull();
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it('answers 404 not_found for an unknown slug', async () => {
    expectProblem(await t.call('pages.delete', { slug: 'nope', confirm: true }, key), 404, 'not_found');
  });
});

describe('POST /api/v1/tools/audit.revert on page entries', () => {
  it('removes a page that pages.upsert created', async () => {
    const { id } = okResult<{ id: string }>(await upsert({ slug: 'about' }));
    const entry = await lastAudit(t, 'pages.upsert', id);
    expect(okResult(await revert(t, key, entry.id))).toMatchObject({ entityType: 'page', entityId: id, restored: 'removed' });
    expect(await pageRow('about')).toBeNull();
  });

  it('restores title, body and status changed by pages.upsert', async () => {
    const { id } = okResult<{ id: string }>(await upsert({ slug: 'about', status: 'draft' }));
    await upsert({ slug: 'about', title: 'Changed title', body: 'Changed body text.', status: 'published' });
    const entry = await lastAudit(t, 'pages.upsert', id);
    okResult(await revert(t, key, entry.id));
    expect(await pageRow('about')).toMatchObject({ id, title: 'About us', body: BODY, status: 'draft' });
  });

  it('re-creates a deleted page with its id, createdAt and layout', async () => {
    const { id } = okResult<{ id: string }>(await upsert({ slug: 'about' }));
    okResult(await t.call('pages.set_layout', { slug: 'about', layout: { sections: [{ id: 'h', key: 'hero', effect: 'fade' }] }, confirm: true }, key));
    const before = await pageRow('about');
    okResult(await t.call('pages.delete', { slug: 'about', confirm: true }, key));
    const entry = await lastAudit(t, 'pages.delete', id);
    expect(okResult(await revert(t, key, entry.id))).toMatchObject({ restored: 'previous_state' });
    const after = await pageRow('about');
    expect(after).toMatchObject({ id, title: before!.title, body: before!.body, status: 'published', layout: before!.layout, createdAt: before!.createdAt });
  });

  it('refuses to re-create a deleted page whose slug was taken since (409) and changes nothing', async () => {
    const { id } = okResult<{ id: string }>(await upsert({ slug: 'about' }));
    okResult(await t.call('pages.delete', { slug: 'about', confirm: true }, key));
    const entry = await lastAudit(t, 'pages.delete', id);
    const { id: newId } = okResult<{ id: string }>(await upsert({ slug: 'about', title: 'New about page' }));
    expectProblem(await revert(t, key, entry.id), 409, 'conflict');
    expect(await pageRow('about')).toMatchObject({ id: newId, title: 'New about page' });
  });

  it('refuses to revert the same entry twice (422 revert_conflict)', async () => {
    const { id } = okResult<{ id: string }>(await upsert({ slug: 'about' }));
    await upsert({ slug: 'about', title: 'Changed title' });
    const entry = await lastAudit(t, 'pages.upsert', id);
    okResult(await revert(t, key, entry.id));
    expectProblem(await revert(t, key, entry.id), 422, 'revert_conflict');
    expect((await pageRow('about'))!.title).toBe('About us');
  });

  it('refuses to revert a page changed since, unless forced', async () => {
    const { id } = okResult<{ id: string }>(await upsert({ slug: 'about' }));
    await upsert({ slug: 'about', title: 'Second title' });
    const second = await lastAudit(t, 'pages.upsert', id);
    await upsert({ slug: 'about', title: 'Third title' });
    expectProblem(await revert(t, key, second.id), 422, 'revert_conflict');
    expect((await pageRow('about'))!.title).toBe('Third title');
    okResult(await revert(t, key, second.id, true));
    expect((await pageRow('about'))!.title).toBe('About us');
    const revertEntry = await lastAudit(t, 'audit.revert', id);
    expect(revertEntry).toMatchObject({ revertOf: second.id, entityType: 'page' });
  });
});

describe('pages.* authentication and scopes', () => {
  const calls: [string, Scope, Record<string, unknown>][] = [
    ['pages.list', 'pages:read', {}],
    ['pages.get_layout', 'pages:read', { slug: 'about' }],
    ['pages.upsert', 'pages:write', { slug: 'about', title: 'About us', body: BODY }],
    ['pages.delete', 'pages:write', { slug: 'about', confirm: true }],
    ['pages.set_layout', 'pages:write', { slug: 'about', layout: { sections: [{ id: 'a', key: 'spacer' }] }, confirm: true }],
  ];

  it.each(calls)('%s answers 401 without a key', async (name, _scope, body) => {
    const res = await t.call(name, body);
    expectProblem(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it.each(calls)('%s answers 403 with a key lacking %s', async (name, scope, body) => {
    await upsert({ slug: 'about' });
    const other = await t.key(SCOPES.filter((s) => s !== scope));
    expect(expectProblem(await t.call(name, body, other), 403, 'insufficient_scope').detail).toContain(scope);
    expect(await pageRow('about')).toMatchObject({ title: 'About us', layout: null });
  });

  it.each(calls)('%s works with a key holding only %s', async (name, scope, body) => {
    await upsert({ slug: 'about' });
    okResult(await t.call(name, body, await t.key([scope])));
  });
});
