// Output: the console tables and bench/results/latest.json.
import pg from 'pg';
import { pad, round } from './format.ts';
import { totalCpu, type SizeResult } from './run-size.ts';
import type { TargetResult } from './targets.ts';
import { NOISY_CORES, settings } from './settings.ts';

export function printTable(size: SizeResult): void {
  const rows: string[][] = [['case', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'ratio', 'note']];
  for (const c of size.cases) {
    if (c.status !== 'ok') {
      rows.push([c.name, c.status.toUpperCase(), '', '', '', '', c.note?.slice(0, 70) ?? '']);
      continue;
    }
    const busy = c.backgroundCores != null && c.backgroundCores > NOISY_CORES ? `busy machine: ${c.backgroundCores} cores in other processes` : '';
    rows.push([c.name, String(c.rps), String(c.p50Ms), String(c.p99Ms), c.baselineRps === null ? '—' : String(c.baselineRps), c.ratio === null ? '—' : c.ratio.toFixed(2), busy]);
  }
  if (size.ceiling) rows.push(['(framework ceiling: constant, same size)', String(size.ceiling.rps), String(size.ceiling.p50Ms), String(size.ceiling.p99Ms), '—', '—', '']);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i === 0 || i === r.length - 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd();
  console.log(
    `\n${size.products.toLocaleString('en')} products, ${settings.connections} connections, ${settings.durationS} s per case ` +
      `(${settings.rounds} interleaved rounds) after ${settings.warmupS} s warm-up:`,
  );
  console.log(line(rows[0]));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows.slice(1)) console.log(line(r));
}

export async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: settings.serverUrl });
  await client.connect();
  try {
    return (await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v;
  } finally {
    await client.end();
  }
}

/** Per read case: req/s, p99 and CPU per request at the smallest and the largest catalog. */
export function growthOf(smallest: SizeResult, largest: SizeResult) {
  return largest.cases
    .filter((c) => c.kind === 'read')
    .map((c) => {
      const small = smallest.cases.find((x) => x.name === c.name);
      return {
        name: c.name,
        [`rps${smallest.products}`]: small?.rps ?? null,
        [`rps${largest.products}`]: c.rps,
        rpsRatio: small?.rps && c.rps ? round(c.rps / small.rps, 2) : null,
        [`p99Ms${smallest.products}`]: small?.p99Ms ?? null,
        [`p99Ms${largest.products}`]: c.p99Ms,
        // CPU per request (service + its PostgreSQL backends) hardly depends on background load, unlike req/s.
        [`cpuMsPerReq${smallest.products}`]: totalCpu(small),
        [`cpuMsPerReq${largest.products}`]: totalCpu(c),
      };
    });
}

export function printGrowth(growth: ReturnType<typeof growthOf>, smallest: SizeResult, largest: SizeResult): void {
  console.log(`\nGrowth ${smallest.products.toLocaleString('en')} → ${largest.products.toLocaleString('en')} products (req/s ratio; 1.0 = no slowdown, ${round(smallest.products / largest.products, 2)} = linear):`);
  for (const g of growth) {
    const cpu = (n: number) => g[`cpuMsPerReq${n}`] ?? '—';
    console.log(`  ${pad(g.name, 46)} ×${g.rpsRatio ?? '—'}   CPU ms/request (service + PostgreSQL) ${cpu(smallest.products)} → ${cpu(largest.products)}`);
  }
}

export function printTargets(targets: readonly TargetResult[], products: number): void {
  console.log(`\nTargets (${products.toLocaleString('en')} products):`);
  for (const t of targets) {
    const mark = t.met === null ? 'n/a ' : t.met ? 'met ' : 'MISS';
    console.log(`  [${mark}] ${t.name}: ${t.value ?? '—'}${t.note ? ` (${t.note})` : ''}`);
  }
}
