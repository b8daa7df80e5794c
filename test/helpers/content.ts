// Helpers shared by the content tests (pages, layouts, services, site).
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/** The result of a 200 tool call; fails the test with the body otherwise. */
export function okResult<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as T;
}

/** Asserts a problem+json error with this status and code, and returns its detail. */
export function expectProblem(res: LightMyRequestResponse, status: number, code: string): string {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json() as { code: string; detail: string; status: number };
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  return body.detail;
}

/** The newest audit entry written by `tool` (for `entityId`, when given). */
export async function lastAudit(t: TestApp, tool: string, entityId?: string) {
  const entry = await t.db.auditEntry.findFirst({
    where: { tool, ...(entityId ? { entityId } : {}) },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
  });
  expect(entry, `no audit entry of ${tool}`).not.toBeNull();
  return entry!;
}

export const revert = (t: TestApp, key: string, auditId: string, force?: boolean) =>
  t.call('audit.revert', { auditId, confirm: true, ...(force === undefined ? {} : { force }) }, key);

/** The confirm values that are not the literal true (spec §4, hardening.md row 12). */
export const NOT_CONFIRMED: readonly [string, Record<string, unknown>][] = [
  ['missing', {}],
  ['"true"', { confirm: 'true' }],
  ['1', { confirm: 1 }],
  ['false', { confirm: false }],
  ['null', { confirm: null }],
];
