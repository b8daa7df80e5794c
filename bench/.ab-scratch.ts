// In-process A/B: CPU per call of products.update / checkout / get, app.inject, one at a time.
import { buildApp } from '../src/app.ts';
import { createKey } from '../src/auth/key-admin.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { SCOPES } from '../src/registry/scopes.ts';
import { createBenchDatabase, seedBenchData } from './seed.ts';
import { makeCarts, stockedProducts } from './write-cases.ts';

const server = 'postgresql://postgres@127.0.0.1:5432/postgres';
const bdb = await createBenchDatabase(server);
try {
  await migrate(bdb.url, { log: () => {} });
  await seedBenchData(bdb.url, 2000);
  const db = createDb({ connectionString: bdb.url, poolMax: 10 });
  const { key, id } = await createKey(db, { name: 'bench', scopes: [...SCOPES] });
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_URL: bdb.url, RATE_LIMIT_ANON_MAX: '1000000000', RATE_LIMIT_PREAUTH_MAX: '1000000000', RATE_LIMIT_AUTH_MAX: '1000000000' });
  const app = await buildApp(config, { db });
  await app.ready();
  const { ids, slugs } = await stockedProducts(bdb.url, 500, 1_000_000_000);
  const N = Number(process.env.N ?? 1500);
  const carts = await makeCarts(bdb.url, id, 'ab', 2 * N + 10, ids);
  const call = (name: string, body: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/api/v1/tools/${name}`, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers }, payload: JSON.stringify(body) });
  let c = 0;
  const cases: Record<string, (i: number) => Promise<unknown>> = {
    get: (i) => call('products.get', { slug: slugs[i % slugs.length] }),
    update: (i) => call('products.update', { slug: slugs[i % slugs.length], patch: { priceDkk: 10_000 + i } }),
    checkout: () => call('checkout.create_order', { cartId: carts[c++], email: 'a@b.dk', shippingName: 'A', shippingAddress: 'B', shippingZip: '8000', shippingCity: 'C' }, { 'idempotency-key': `k${c}` }),
  };
  for (const only of (process.env.CASES ?? 'get,update,checkout').split(',')) {
    const fn = cases[only];
    for (let i = 0; i < 200; i++) { const r = await fn(i) as { statusCode: number; body: string }; if (r.statusCode !== 200) throw new Error(r.body); }
    const t0 = process.cpuUsage(); const w0 = Date.now();
    for (let i = 0; i < N; i++) await fn(i);
    const u = process.cpuUsage(t0);
    console.log(`${only}: ${((u.user + u.system) / 1000 / N).toFixed(3)} ms node CPU/call, ${((Date.now() - w0) / N).toFixed(2)} ms wall/call`);
  }
  await app.close();
} finally {
  await bdb.drop();
}
process.exit(0);
