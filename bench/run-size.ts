// One catalog size: a fresh database seeded with that many products, both servers started on it, every case probed,
// checked and measured, then everything stopped and dropped.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import pg from 'pg';
import { createKey } from '../src/auth/key-admin.ts';
import { createDb } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { SCOPES } from '../src/registry/scopes.ts';
import { buildCases, C, checkIdentical, headersFor, loadFixtures, post, probe, type CaseDef } from './cases.ts';
import { toolListTokens, type ToolListTokens } from './tool-list-tokens.ts';
import { registerCleanup } from './cleanup.ts';
import { pad, round } from './format.ts';
import { measureGroup, type Leg, type Measurement } from './measure.ts';
import { checkRuntime, keepProfile, startBaseline, startService } from './processes.ts';
import { memoryOf } from './resources.ts';
import { soak, type SoakResult } from './soak.ts';
import { createBenchDatabase, Q_WORD, seedBenchData, type BenchDatabase, type SeedStats } from './seed.ts';
import { BASELINE, LARGEST, NOISY_CORES, ROOT, START, settings } from './settings.ts';
import { checkCheckoutIdentical, checkNotOversold, prepareWrites } from './write-cases.ts';

export type CaseResult = {
  name: string;
  rps: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  baselineRps: number | null;
  ratio: number | null;
  status: 'ok' | 'skipped' | 'error';
  note?: string;
  kind: 'read' | 'write';
  authenticated: boolean;
  /** The hot-product case: units sold + stock left = stock at the start, for service and baseline. */
  stockCheck?: string;
  /** Average CPU cores used by unrelated processes while this case was measured (noise indicator). */
  backgroundCores?: number | null;
  service?: Measurement;
  baseline?: Measurement;
};

export type SizeResult = {
  products: number;
  /** How service and baseline ran (node, flags, entry), as checked before measuring. */
  runtime: { service: string; baseline: string };
  seed: SeedStats;
  cases: CaseResult[];
  ceiling: Measurement | null;
  serviceMemory: { rssMb: number; peakRssMb: number } | null;
  baselineMemory: { rssMb: number; peakRssMb: number } | null;
  toolListTokens: ToolListTokens;
  soak: SoakResult | null;
};

export async function runSize(products: number): Promise<SizeResult> {
  console.log(`\n=== ${products.toLocaleString('en')} products ===`);
  const db: BenchDatabase = await createBenchDatabase(settings.serverUrl);
  registerCleanup(() => db.drop());
  console.log(`database ${db.name}: migrating and seeding…`);
  await migrate(db.url, { log: () => {} });
  if (settings.extraSql) {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(readFileSync(settings.extraSql, 'utf8'));
    } finally {
      await client.end();
    }
    console.log(`applied ${path.relative(ROOT, settings.extraSql)} after the migrations`);
  }
  const seed = await seedBenchData(db.url, products);
  console.log(
    `seeded in ${seed.seedSeconds.toFixed(1)} s: ${seed.products} products (${seed.liveProducts} live), ${seed.categories} categories, ` +
      `${seed.orders} orders / ${seed.orderItems} items; q "${Q_WORD}" matches ${seed.qMatches} (${((100 * seed.qMatches) / seed.liveProducts).toFixed(2)} %)`,
  );

  const prisma = createDb({ connectionString: db.url, poolMax: 1 });
  const { key, id: keyId } = await createKey(prisma, { name: 'bench', scopes: [...SCOPES] });
  await prisma.$disconnect();
  const fixtures = await loadFixtures(db.url);
  const writeNames = [C.addItem, C.checkout, C.checkoutStripe, C.hot, C.discount, C.ucp, C.ucpHot, C.acp, C.ucpComplete, C.ucpCompleteHot, C.acpComplete];
  const writes = products === LARGEST && (!settings.caseFilter || writeNames.some((n) => settings.caseFilter!.test(n)))
    ? await prepareWrites(db.url, keyId)
    : null;
  const cases = buildCases(fixtures, products, writes);

  const service = await startService(db.url, String(products));
  const baseline = await startBaseline(db.url);
  const stripe = cases.some((c) => c.stripe) ? await startStripeService(db.url, String(products)) : null;
  const serverOf = (c: CaseDef) => (c.stripe && stripe ? stripe.service : service);
  console.log(`service pid ${service.pid} on :${service.port}, baseline pid ${baseline.pid} on :${baseline.port}`);
  // A ratio compares two ways of running only if both sides run alike: bundles of this build, no loader, same node.
  const node = settings.serverNode.path;
  const runtime = {
    service: checkRuntime(service, START.entry, { node, flags: settings.serviceNodeArgs }),
    baseline: checkRuntime(baseline, BASELINE.entry, { node, flags: START.nodeFlags }),
  };
  console.log(`service: ${runtime.service}\nbaseline: ${runtime.baseline}`);

  // Fail loudly before measuring anything: a baseline that answers differently is not a baseline.
  for (const c of cases.filter((x) => x.baseline)) await checkIdentical(c, service, baseline, key);
  if (writes && cases.some((c) => c.name === C.checkout || c.name === C.hot)) {
    const sides = { service, baseline };
    await checkCheckoutIdentical(
      async (side, body, headers) => {
        const res = await post(sides[side].port, '/api/v1/tools/checkout.create_order', body, { ...headersFor({ auth: true, mcp: false }, key), ...headers });
        return { status: res.status, body: res.body.toString() };
      },
      writes.check,
    );
  }
  if (cases.some((c) => c.baseline)) console.log('service and baseline answer byte-identically on every baseline case');
  const listTokens = await toolListTokens(service, key);

  const results: CaseResult[] = [];
  const groups = [...new Set(cases.map((c) => c.group))];
  for (const group of groups) {
    const runnable: CaseDef[] = [];
    for (const c of cases.filter((x) => x.group === group)) {
      await c.prepare?.(db.url, serverOf(c).port, headersFor({ auth: true, mcp: false }, key));
      const problem = await probe(c, serverOf(c), key);
      if (!problem) {
        runnable.push(c);
        continue;
      }
      results.push({
        name: c.name, kind: c.write ? 'write' : 'read', authenticated: c.auth,
        rps: null, p50Ms: null, p99Ms: null, baselineRps: null, ratio: null, status: problem.skip ? 'skipped' : 'error', note: problem.reason,
      });
      console.log(`${pad(c.name, 46)} ${problem.skip ? 'SKIPPED' : 'ERROR'}: ${problem.reason}`);
    }
    if (runnable.length === 0) continue;
    const legs: Leg[] = runnable.flatMap((c) => [
      {
        key: `${c.name}|service`, server: serverOf(c), path: c.path, bodies: c.bodies, auth: c.auth, mcp: c.mcp, pages: c.pages, next: c.next?.service, flow: c.flow,
        connections: c.connections,
      },
      ...(c.baseline
        ? [{ key: `${c.name}|baseline`, server: baseline, path: c.path, bodies: c.bodies, auth: false, mcp: false as const, next: c.next?.baseline, connections: c.connections }]
        : []),
    ]);
    const m = await measureGroup(legs, key, db.name, [service, baseline, ...(stripe ? [stripe.service] : [])]);
    for (const c of runnable) {
      const s = m.legs.get(`${c.name}|service`)!;
      const b = m.legs.get(`${c.name}|baseline`);
      const bad = (x: Measurement) => x.non2xx + x.errors + x.timeouts;
      // The hot product: every unit sold is an order line, and stock never went below zero (service and baseline).
      const sold = !writes ? []
        : c.name === C.hot ? [await checkNotOversold(db.url, writes.hot.service), await checkNotOversold(db.url, writes.hot.baseline)]
        : c.name === C.ucpHot ? [await checkNotOversold(db.url, writes.ucp.hot)]
        : c.name === C.ucpCompleteHot ? [await checkNotOversold(db.url, writes.ucp.hotCompletions)]
        : [];
      const failed = bad(s) + (b ? bad(b) : 0) > 0 || sold.some((x) => !x.ok);
      const result: CaseResult = {
        name: c.name,
        rps: s.rps,
        p50Ms: s.p50Ms,
        p99Ms: s.p99Ms,
        baselineRps: b?.rps ?? null,
        ratio: b ? round(s.rps / b.rps, 2) : null,
        status: failed ? 'error' : 'ok',
        ...(failed ? { note: `non-2xx/errors/timeouts: service ${s.non2xx}/${s.errors}/${s.timeouts}${b ? `, baseline ${b.non2xx}/${b.errors}/${b.timeouts}` : ''}` } : {}),
        ...(sold.length ? { stockCheck: sold.map((x, i) => `${i === 0 ? 'service' : 'baseline'} ${x.detail}`).join('; ') } : {}),
        kind: c.write ? 'write' : 'read',
        authenticated: c.auth,
        backgroundCores: m.backgroundCores,
        service: s,
        ...(b ? { baseline: b } : {}),
      };
      results.push(result);
      if (failed) console.error(`${c.name} failed; the service's last output:\n${service.output().slice(-2000)}`);
      console.log(
        `${pad(c.name, 46)} ${pad(String(s.rps), 7, true)} req/s  p50 ${s.p50Ms} ms  p99 ${s.p99Ms} ms` +
          (b ? `  | baseline ${b.rps} req/s p99 ${b.p99Ms} ms → ×${result.ratio}` : '') +
          (m.backgroundCores !== null && m.backgroundCores > NOISY_CORES ? `  (background load ${m.backgroundCores} cores)` : '') +
          (result.stockCheck ? `  [${result.stockCheck}]` : '') +
          (failed ? `  !! ${result.note}` : ''),
      );
    }
  }
  // Keep the reported order stable (the order of buildCases), whatever the grouping.
  results.sort((a, b) => cases.findIndex((c) => c.name === a.name) - cases.findIndex((c) => c.name === b.name));

  let ceiling: Measurement | null = null;
  if (!settings.caseFilter || settings.caseFilter.test('ceiling')) {
    const leg: Leg = { key: 'ceiling', server: baseline, path: '/ceiling', bodies: ['{}'], auth: false, mcp: false };
    ceiling = (await measureGroup([leg], key, db.name, [service, baseline])).legs.get('ceiling')!;
    console.log(`${pad('framework ceiling (constant, same size)', 46)} ${pad(String(ceiling.rps), 7, true)} req/s  p50 ${ceiling.p50Ms} ms  p99 ${ceiling.p99Ms} ms`);
  }

  const checkout = results.find((r) => r.name === C.checkout && r.status === 'ok');
  const soaked = writes && checkout?.rps && settings.soakS > 0 ? await soak(db.url, keyId, key, service, checkout.rps, writes.distinctProducts) : null;

  // After the run, as the issue asks: the service's memory once every case has gone through it.
  const serviceMemory = memoryOf(service.pid);
  const baselineMemory = memoryOf(baseline.pid);
  if (serviceMemory) console.log(`service RSS after the run: ${serviceMemory.rssMb} MB (peak ${serviceMemory.peakRssMb} MB)`);

  await service.stop();
  await baseline.stop();
  await stripe?.stop();
  if (settings.cpuProf) {
    const kept = keepProfile(String(products));
    if (kept) console.log(`CPU profile of the service: ${path.relative(process.cwd(), kept)} (npx tsx bench/profile-summary.ts ${path.relative(process.cwd(), kept)})`);
  }
  await db.drop();
  return { products, runtime, seed, cases: results, ceiling, serviceMemory, baselineMemory, toolListTokens: listTokens, soak: soaked };
}

/**
 * A second service with PAYMENTS_PROVIDER=stripe, its SDK pointed at the fake Stripe API (bench/fake-stripe.ts, a
 * process of its own) on loopback. That needs OUTBOUND_ALLOW_PRIVATE and STRIPE_API_URL, both refused with
 * NODE_ENV=production: this service runs as development, which changes no code path of a checkout.
 */
async function startStripeService(databaseUrl: string, label: string) {
  const fakeProc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/fake-stripe.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const stopFake = () => new Promise<void>((resolve) => {
    if (fakeProc.exitCode !== null) return resolve();
    fakeProc.once('exit', () => resolve());
    fakeProc.kill('SIGTERM');
  });
  registerCleanup(stopFake);
  const [line] = (await once(createInterface({ input: fakeProc.stdout! }), 'line')) as [string];
  const fake = JSON.parse(line) as { url: string; secretKey: string; webhookSecret: string };
  const service = await startService(databaseUrl, `${label}-stripe`, {
    NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE: '1', PAYMENTS_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: fake.secretKey, STRIPE_WEBHOOK_SECRET: fake.webhookSecret, STRIPE_API_URL: fake.url,
  });
  console.log(`service with PAYMENTS_PROVIDER=stripe pid ${service.pid} on :${service.port}, fake Stripe pid ${fakeProc.pid} at ${fake.url}`);
  return { service, stop: async () => { await service.stop(); await stopFake(); } };
}

/** CPU milliseconds per request of a case: the service process plus its PostgreSQL backends. */
export function totalCpu(c: CaseResult | undefined): number | null {
  const s = c?.service;
  return s && s.cpuMsPerReq !== null && s.pgCpuMsPerReq !== null ? round(s.cpuMsPerReq + s.pgCpuMsPerReq, 3) : null;
}
