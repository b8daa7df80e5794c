// hasChangedSince (audit.revert's conflict check) and reviveSnapshot (snapshot → column values).
import { describe, expect, it } from 'vitest';
import { hasChangedSince } from '../../src/domain/revert.ts';
import { reviveSnapshot } from '../../src/domain/revert.ts';

const after = { id: 'p1', name: 'Aviator', priceDkk: 100, images: ['a', 'b'], attributes: { x: '1', y: '2' }, deletedAt: null, updatedAt: '2026-01-01T00:00:00.000Z' };

describe('hasChangedSince', () => {
  it('is false for the same state', () => {
    expect(hasChangedSince(after, structuredClone(after))).toBe(false);
    expect(hasChangedSince(null, null)).toBe(false);
  });

  it('ignores updatedAt and the order of object keys (jsonb reorders them)', () => {
    const reordered = { updatedAt: '2030-01-01T00:00:00.000Z', attributes: { y: '2', x: '1' }, deletedAt: null, images: ['a', 'b'], priceDkk: 100, name: 'Aviator', id: 'p1' };
    expect(hasChangedSince(after, reordered)).toBe(false);
  });

  it('treats an undefined field like a missing one', () => {
    expect(hasChangedSince({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });

  it('sees any other difference', () => {
    expect(hasChangedSince(after, { ...after, name: 'Other' })).toBe(true);
    expect(hasChangedSince(after, { ...after, priceDkk: 101 })).toBe(true);
    expect(hasChangedSince(after, { ...after, images: ['b', 'a'] })).toBe(true);
    expect(hasChangedSince(after, { ...after, attributes: { x: '1' } })).toBe(true);
    expect(hasChangedSince(after, { ...after, deletedAt: '2026-01-02T00:00:00.000Z' })).toBe(true);
    expect(hasChangedSince(after, { ...after, brand: null })).toBe(true);
    expect(hasChangedSince(after, null)).toBe(true);
    expect(hasChangedSince(null, after)).toBe(true);
  });

  it('distinguishes null from a missing field and from the string "null"', () => {
    expect(hasChangedSince({ a: null }, { a: 'null' })).toBe(true);
    expect(hasChangedSince({ a: 1 }, { a: '1' })).toBe(true);
  });
});

describe('reviveSnapshot', () => {
  it('turns the named fields back into BigInt and Date, omits others, and copies the rest', () => {
    const snapshot = { id: 'p1', priceDkk: 9007199254740991, stock: 0, createdAt: '2026-01-01T00:00:00.000Z', deletedAt: null, updatedAt: 'x', name: 'A' };
    const data = reviveSnapshot(snapshot, { bigint: ['priceDkk', 'stock'], date: ['createdAt', 'deletedAt'], omit: ['id', 'updatedAt'] });
    expect(data).toEqual({ priceDkk: 9007199254740991n, stock: 0n, createdAt: new Date('2026-01-01T00:00:00.000Z'), deletedAt: null, name: 'A' });
    expect(snapshot.id).toBe('p1');
  });
});
