// A tool's declaration is checked on every call: a problem code it did not declare, or an audit entry of an entity
// type it did not declare, is a 500 under TOOL_CONTRACTS=strict (the whole test suite and the fuzzer run that way)
// and is only logged otherwise, so production answers stay what they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/errors.ts';
import { defineTool } from '../../src/registry/define-tool.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const tools = [
  defineTool({
    name: 'contract.undeclared_code',
    title: 'Raises an undeclared code',
    description: 'Raises not_found without declaring it.',
    scope: 'catalog:read',
    anonymous: true,
    kind: 'read',
    errors: [],
    input: z.strictObject({}),
    output: z.object({}),
    handler: async () => {
      throw new AppError('not_found', 'Nothing here.');
    },
  }),
  defineTool({
    name: 'contract.declared_code',
    title: 'Raises a declared code',
    description: 'Raises not_found and declares it.',
    scope: 'catalog:read',
    anonymous: true,
    kind: 'read',
    errors: ['not_found'],
    input: z.strictObject({}),
    output: z.object({}),
    handler: async () => {
      throw new AppError('not_found', 'Nothing here.');
    },
  }),
  defineTool({
    name: 'contract.undeclared_audit',
    title: 'Audits an undeclared entity type',
    description: 'Records an audit entry of a type its declaration does not name.',
    scope: 'settings:write',
    kind: 'write',
    errors: [],
    audit: { appendOnly: ['declared'] },
    input: z.strictObject({}),
    output: z.object({ ok: z.literal(true) }),
    handler: async (_input, ctx) => {
      ctx.audit({ entityType: 'ghost', entityId: '1', before: null, after: { x: 1 } });
      return { ok: true as const };
    },
  }),
];

describe('tool contracts, strict (tests and fuzzer)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tools });
  });
  afterAll(() => t.close());

  it('turns an undeclared problem code into a 500', async () => {
    const res = await t.call('contract.undeclared_code');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ code: 'internal_error' });
  });

  it('passes a declared problem code through', async () => {
    const res = await t.call('contract.declared_code');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found', detail: 'Nothing here.' });
  });

  it('refuses a write that audits an undeclared entity type, and writes nothing', async () => {
    const res = await t.call('contract.undeclared_audit', {}, await t.key(['settings:write']));
    expect(res.statusCode).toBe(500);
    expect(await t.db.auditEntry.count({ where: { entityType: 'ghost' } })).toBe(0);
  });
});

describe('tool contracts, logged (production)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tools, env: { TOOL_CONTRACTS: 'log' } });
  });
  afterAll(() => t.close());

  it('answers an undeclared code as raised', async () => {
    const res = await t.call('contract.undeclared_code');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found' });
  });

  it('records an undeclared audit type as before', async () => {
    const res = await t.call('contract.undeclared_audit', {}, await t.key(['settings:write']));
    expect(res.statusCode).toBe(200);
    expect(await t.db.auditEntry.count({ where: { entityType: 'ghost' } })).toBe(1);
  });
});
