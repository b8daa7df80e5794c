import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/db/client.ts';
import { expectProblem } from './problem.ts';

type Call = (name: string, body: unknown) => Promise<LightMyRequestResponse>;

/** Assertions for catalog write tools (`dbOf` because the test app is made in beforeAll): a refused call changes nothing; a successful one writes one audit entry. */
export function catalogWriteAssertions(dbOf: () => Db, call: Call, entityType: string, keyId: () => string) {
  const auditCount = () => dbOf().auditEntry.count();
  const latestAudit = () => dbOf().auditEntry.findFirstOrThrow({ orderBy: [{ at: 'desc' }, { id: 'desc' }] });
  /** Everything a failed call must leave untouched. */
  const snapshot = async () => ({
    products: await dbOf().product.findMany({ orderBy: { id: 'asc' } }),
    categories: await dbOf().category.findMany({ orderBy: { id: 'asc' } }),
    audit: await auditCount(),
  });

  return {
    snapshot,
    auditCount,
    latestAudit,
    /** Calls a write tool that must fail with `status`/`code` and asserts the database did not change. */
    async expectRefused(name: string, body: unknown, status: number, code: string) {
      const before = await snapshot();
      const problem = expectProblem(await call(name, body), status, code);
      expect(await snapshot()).toEqual(before);
      return problem;
    },
    /** Calls a write tool that must succeed and asserts it wrote exactly one audit entry. */
    async expectOneAuditEntry(name: string, body: unknown) {
      const before = await auditCount();
      const res = await call(name, body);
      expect(res.statusCode, res.body).toBe(200);
      expect(await auditCount()).toBe(before + 1);
      const entry = await latestAudit();
      expect(entry).toMatchObject({ tool: name, entityType, apiKeyId: keyId(), revertOf: null });
      return { res, entry };
    },
  };
}
