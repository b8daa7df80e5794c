import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { CHECKOUT_CONTACT } from '../helpers/factories.ts';
import { queryRows } from '../../src/db/client.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { createKey } from '../../src/auth/key-admin.ts';

const ticks = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };

it('a/b', async () => {
  const t = await createTestApp({ poolMax: 1 });
  const { key, id: keyId } = await createKey(t.db, { name: 'ab', scopes: ['cart:write'] });
  const N = 6000;
  await queryRows(t.db, Prisma.sql`INSERT INTO "Product" (id, slug, name, description, "priceDkk", stock, "updatedAt")
    SELECT 'p' || g, 'p-' || g, 'Product ' || g, repeat('word ', 60), 10000, 100, now() FROM generate_series(1, ${N}) g`);
  await queryRows(t.db, Prisma.sql`INSERT INTO "Cart" (id, "apiKeyId", status, "updatedAt") SELECT 'c' || g, ${keyId}, 'open', now() FROM generate_series(1, ${N}) g`);
  await queryRows(t.db, Prisma.sql`INSERT INTO "CartItem" (id, "cartId", "productId", quantity) SELECT 'i' || g, 'c' || g, 'p' || g, 1 FROM generate_series(1, ${N}) g`);
  const [{ pid }] = await queryRows<{ pid: number }>(t.db as never, Prisma.sql`SELECT 1 AS pid`);
  void pid;
  const variants = (process.env.AB_VARIANTS ?? 'base,none').split(',');
  const block = 250;
  let next = 1;
  const totals = new Map<string, { node: number; pg: number; n: number; ms: number }>();
  // find the app's backend: the only other connection of this database
  const backend = async () => (await queryRows<{ pid: number }>(t.db, Prisma.sql`SELECT pg_backend_pid() AS pid`)).map((r) => r.pid);
  // warm
  process.env.OUTBOX_VARIANT = 'base';
  for (let i = 0; i < 200; i++) await t.call('checkout.create_order', { cartId: `c${next++}`, ...CHECKOUT_CONTACT }, key, { headers: { 'idempotency-key': `k${next}` } });
  const pids = await backend();
  if (pids.length !== 1) throw new Error(`backends: ${pids}`);
  for (let round = 0; next + block * variants.length <= N; round++) {
    for (const v of variants) {
      process.env.OUTBOX_VARIANT = v;
      const pg0 = ticks(pids[0]); const c0 = process.cpuUsage(); const t0 = performance.now();
      for (let i = 0; i < block; i++) {
        const r = await t.call('checkout.create_order', { cartId: `c${next++}`, ...CHECKOUT_CONTACT }, key, v === 'nokey' ? {} : { headers: { 'idempotency-key': `k${next}` } });
        if (r.statusCode !== 200) throw new Error(v + r.body);
      }
      const c = process.cpuUsage(c0); const ms = performance.now() - t0; const pg = (ticks(pids[0]) - pg0) * 10;
      const tot = totals.get(v) ?? { node: 0, pg: 0, n: 0, ms: 0 };
      tot.node += (c.user + c.system) / 1000; tot.pg += pg; tot.n += block; tot.ms += ms;
      totals.set(v, tot);
    }
  }
  for (const [v, x] of totals) console.log(`AB ${v}: n=${x.n} wall ${(x.ms / x.n).toFixed(3)} ms, node ${(x.node / x.n).toFixed(3)} ms, pg ${(x.pg / x.n).toFixed(3)} ms`);
  await t.close();
}, 600_000);
