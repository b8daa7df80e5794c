// plainJson / toJsonValue: rows become plain JSON for audit snapshots and output; BigInt and Date are exact.
import { describe, expect, it } from 'vitest';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { toJsonValue } from '../../src/db/json-value.ts';
import { plainJson } from '../../src/domain/json-snapshot.ts';

describe('plainJson', () => {
  it('turns BigInt into an exact number and Date into ISO 8601 UTC', () => {
    expect(plainJson(9007199254740991n)).toBe(9007199254740991);
    expect(plainJson(-5n)).toBe(-5);
    expect(plainJson(new Date('2026-01-02T03:04:05.678+02:00'))).toBe('2026-01-02T01:04:05.678Z');
  });

  it('converts nested objects and arrays, drops undefined and keeps null', () => {
    const row = {
      id: 'p1', priceDkk: 100n, tags: [1n, 'x', null], createdAt: new Date(0), deletedAt: null, extra: undefined,
      faq: [{ q: 'Q', a: 'A', at: new Date(1000) }],
    };
    expect(plainJson(row)).toEqual({
      id: 'p1', priceDkk: 100, tags: [1, 'x', null], createdAt: '1970-01-01T00:00:00.000Z', deletedAt: null,
      faq: [{ q: 'Q', a: 'A', at: '1970-01-01T00:00:01.000Z' }],
    });
    expect(Object.keys(plainJson(row) as object)).not.toContain('extra');
  });

  it('leaves scalars as they are and survives JSON.stringify', () => {
    for (const v of ['s', 1, true, false, null]) expect(plainJson(v)).toBe(v);
    expect(() => JSON.stringify(plainJson({ n: 1n, d: new Date() }))).not.toThrow();
  });
});

describe('toJsonValue', () => {
  it('maps null and undefined to SQL NULL', () => {
    expect(toJsonValue(null)).toBe(Prisma.DbNull);
    expect(toJsonValue(undefined)).toBe(Prisma.DbNull);
  });

  it('maps anything else to plain JSON', () => {
    expect(toJsonValue({ n: 2n, d: new Date(0) })).toEqual({ n: 2, d: '1970-01-01T00:00:00.000Z' });
    expect(toJsonValue([])).toEqual([]);
  });
});
