// A write whose transaction fails as a serialization failure (SQLSTATE 40001: rows it read changed before it locked
// them, see agent_api_expect) is rolled back and run again, at most five times (src/registry/invoke-tool.ts).
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { defineTool } from '../../src/registry/define-tool.ts';
import { featureSnapshot } from '../../src/services/features.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { resetTables } from '../helpers/database.ts';
import { expectProblem } from '../helpers/problem.ts';

/** Runs per tool: how many times the handler ran, and after how many runs the write stops conflicting. */
const runs = { count: 0, conflictsUntil: 0 };

const conflicting = defineTool({
  name: 'test.conflicting_write',
  title: 'Conflicting write',
  description: 'Sets a feature flag, then fails as a serialization failure until its runs reach conflictsUntil.',
  scope: 'features:write',
  kind: 'write',
  errors: [],
  audit: { appendOnly: ['feature'] },
  input: z.strictObject({ key: z.string() }),
  output: z.object({ runs: z.number() }),
  async handler({ key }, ctx) {
    runs.count += 1;
    const flag = await ctx.db.featureFlag.create({ data: { key, enabled: true } });
    await queryRows(ctx.db, Prisma.sql`SELECT agent_api_expect(${runs.count > runs.conflictsUntil}, 'the test''s rows')`);
    ctx.audit({ entityType: 'feature', entityId: key, before: null, after: featureSnapshot(flag) });
    return { runs: runs.count };
  },
});

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({ tools: [...TOOLS, conflicting] });
  key = await t.key();
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => {
  await resetTables(t.db, 'FeatureFlag', 'AuditEntry');
  runs.count = 0;
});

it('runs a write again after a serialization failure, keeping only the last run', async () => {
  runs.conflictsUntil = 2;
  expect(okResult(await t.call('test.conflicting_write', { key: 'retried' }, key))).toEqual({ runs: 3 });
  expect(await t.db.featureFlag.count({ where: { key: 'retried' } })).toBe(1);
  expect(await t.db.auditEntry.count({ where: { tool: 'test.conflicting_write' } })).toBe(1);
});

it('gives up after five runs with a retryable 503, leaving nothing behind', async () => {
  runs.conflictsUntil = 1_000;
  const res = await t.call('test.conflicting_write', { key: 'never' }, key, { headers: { 'idempotency-key': 'conflicting-1' } });
  expectProblem(res, 503, 'service_unavailable');
  expect(res.headers['retry-after']).toBe('1');
  expect(runs.count).toBe(5);
  expect(await t.db.featureFlag.count()).toBe(0);
  expect(await t.db.auditEntry.count({ where: { tool: 'test.conflicting_write' } })).toBe(0);
  // A 5xx is not remembered for the key: the same call may be sent again, and then succeeds.
  runs.count = 0;
  runs.conflictsUntil = 0;
  expect(okResult(await t.call('test.conflicting_write', { key: 'never' }, key, { headers: { 'idempotency-key': 'conflicting-1' } }))).toEqual({ runs: 1 });
});
