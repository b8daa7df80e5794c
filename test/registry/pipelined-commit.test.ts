// A write's final statement leaves with COMMIT right behind it (src/db/client.ts, `commits`), so a final statement
// that fails must take the whole write with it: PostgreSQL answers that COMMIT with ROLLBACK, the call fails, and the
// connection goes back to the pool clean. One pool connection, so every later call runs on the same session.
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { APPLICATION_NAME } from '../../src/db/sql.ts';
import { defineTool } from '../../src/registry/define-tool.ts';
import { featureSnapshot } from '../../src/services/features.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { okResult } from '../helpers/calls.ts';
import { resetTables } from '../helpers/database.ts';
import { expectProblem } from '../helpers/problem.ts';

const flagWrite = defineTool({
  name: 'test.flag_write',
  title: 'Flag write',
  description: 'Creates a feature flag and audits it; the audit entry is written by the final statement.',
  scope: 'features:write',
  kind: 'write',
  errors: [],
  audit: { appendOnly: ['feature'] },
  input: z.strictObject({ key: z.string() }),
  output: z.object({ key: z.string() }),
  async handler({ key }, ctx) {
    const flag = await ctx.db.featureFlag.create({ data: { key, enabled: true } });
    ctx.audit({ entityType: 'feature', entityId: key, before: null, after: featureSnapshot(flag) });
    return { key };
  },
});

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({ tools: [...TOOLS, flagWrite], poolMax: 1 });
  key = await t.key();
  // The final statement's audit insert fails for one entity: an error no retry would mend.
  await t.db.$executeRawUnsafe(`
    CREATE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW."entityId" = 'refused' THEN RAISE EXCEPTION 'audit refused by the test'; END IF;
      RETURN NEW;
    END $$`);
  await t.db.$executeRawUnsafe(`CREATE TRIGGER test_refuse_audit BEFORE INSERT ON "AuditEntry" FOR EACH ROW EXECUTE FUNCTION test_refuse_audit()`);
});
afterAll(async () => { await t?.close(); });
beforeEach(async () => { await resetTables(t.db, 'FeatureFlag', 'AuditEntry', 'IdempotencyRecord'); });

const sessionsInTransaction = async () =>
  (await t.db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${APPLICATION_NAME} AND state LIKE 'idle in transaction%'`)[0].n;

it('a failed final statement rolls the write back, and its connection serves the next write', async () => {
  const failed = await t.call('test.flag_write', { key: 'refused' }, key, { headers: { 'idempotency-key': 'refused-1' } });
  expectProblem(failed, 500);
  expect(await t.db.featureFlag.count()).toBe(0);
  expect(await t.db.auditEntry.count()).toBe(0);
  // An infrastructure failure is not remembered for the key: nothing was stored with the rolled-back write.
  expect(await t.db.idempotencyRecord.count()).toBe(0);
  expect(await sessionsInTransaction()).toBe(0);

  for (const flag of ['after-1', 'after-2', 'after-3']) okResult(await t.call('test.flag_write', { key: flag }, key));
  expect((await t.db.featureFlag.findMany({ orderBy: { key: 'asc' } })).map((f) => f.key)).toEqual(['after-1', 'after-2', 'after-3']);
  expect(await t.db.auditEntry.count({ where: { tool: 'test.flag_write' } })).toBe(3);
  expect(await sessionsInTransaction()).toBe(0);
});

it('the same key sent again after the failure runs the write anew', async () => {
  expectProblem(await t.call('test.flag_write', { key: 'refused' }, key, { headers: { 'idempotency-key': 'again-1' } }), 500);
  await t.db.$executeRawUnsafe(`ALTER TABLE "AuditEntry" DISABLE TRIGGER test_refuse_audit`);
  try {
    expect(okResult(await t.call('test.flag_write', { key: 'refused' }, key, { headers: { 'idempotency-key': 'again-1' } }))).toEqual({ key: 'refused' });
  } finally {
    await t.db.$executeRawUnsafe(`ALTER TABLE "AuditEntry" ENABLE TRIGGER test_refuse_audit`);
  }
  expect(await t.db.featureFlag.count({ where: { key: 'refused' } })).toBe(1);
  expect(await t.db.auditEntry.count({ where: { entityId: 'refused' } })).toBe(1);
});
