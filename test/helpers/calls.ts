// Tool-call helpers shared by the tool tests: results, audit entries, reverts, scope checks, concurrency.
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { SCOPES, type Scope } from '../../src/registry/scopes.ts';
import type { TestApp } from './app.ts';
import { expectProblem } from './problem.ts';

/** The result of a 200 tool call; fails the test with the body otherwise. */
export function okResult<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as T;
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

/** 401 without a key, 403 with a key holding every scope but the tool's own. */
export async function expectScopeEnforced(t: TestApp, tool: string, scope: Scope, body: unknown = {}) {
  expectProblem(await t.call(tool, body), 401, 'unauthorized');
  const lacking = await t.key(SCOPES.filter((s) => s !== scope));
  expectProblem(await t.call(tool, body, lacking), 403, 'insufficient_scope');
}

/** Fires all calls at once (not one after the other) and returns the responses in call order. */
export const concurrently = <T>(n: number, call: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => call(i)));

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
