// categories.list shares its count query between concurrent calls (src/tools/categories.ts, docs/performance.md),
// but must never answer a call with a query that started before the call arrived: that would hide a write the
// caller had already seen committed. A fake client records when each query starts and lets the test finish it.
import { describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/registry/define-tool.ts';
import { listCategories } from '../../src/tools/categories.ts';

type Pending = { started: number; finish: (count: number) => void; fail: (err: Error) => void };

function fakeDb() {
  const queries: Pending[] = [];
  let clock = 0;
  const db = {
    $queryRaw: () =>
      new Promise((resolve, reject) => {
        queries.push({
          started: ++clock,
          finish: (count) => resolve([{ id: 'c1', slug: 'c', name: 'C', description: null, productCount: BigInt(count) }]),
          fail: reject,
        });
      }),
  };
  return { db: db as unknown as ToolContext['db'], queries, tick: () => ++clock };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('categories.list query sharing', () => {
  it('runs one query for a lone call', async () => {
    const { db, queries } = fakeDb();
    const answer = listCategories(db);
    expect(queries).toHaveLength(1);
    queries[0].finish(3);
    expect(await answer).toEqual([{ id: 'c1', slug: 'c', name: 'C', description: null, productCount: 3 }]);
  });

  it('answers calls that arrive during a query with one fresh query started after that query ends', async () => {
    const { db, queries, tick } = fakeDb();
    const first = listCategories(db);
    const arrivedAt = tick();
    const second = listCategories(db);
    const third = listCategories(db);
    expect(queries).toHaveLength(1); // the second and third wait; they do not join the running query
    queries[0].finish(1);
    expect((await first)[0].productCount).toBe(1);
    await flush();
    expect(queries).toHaveLength(2);
    expect(queries[1].started).toBeGreaterThan(arrivedAt);
    queries[1].finish(2);
    expect((await second)[0].productCount).toBe(2);
    expect((await third)[0].productCount).toBe(2);
  });

  it('starts afresh after a failed query, and reports the failure only to the calls that shared it', async () => {
    const { db, queries } = fakeDb();
    const first = listCategories(db);
    const second = listCategories(db);
    queries[0].fail(new Error('boom'));
    await expect(first).rejects.toThrow('boom');
    await flush();
    queries[1].finish(5);
    expect((await second)[0].productCount).toBe(5);
    const later = listCategories(db);
    expect(queries).toHaveLength(3);
    queries[2].finish(6);
    expect((await later)[0].productCount).toBe(6);
  });

  it('keeps separate clients (apps, transactions) apart', async () => {
    const a = fakeDb();
    const b = fakeDb();
    const fromA = listCategories(a.db);
    const fromB = listCategories(b.db);
    expect(a.queries).toHaveLength(1);
    expect(b.queries).toHaveLength(1);
    a.queries[0].finish(1);
    b.queries[0].finish(2);
    expect((await fromA)[0].productCount).toBe(1);
    expect((await fromB)[0].productCount).toBe(2);
  });
});
