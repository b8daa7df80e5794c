// The soak: checkouts (distinct products, each with an Idempotency-Key) at half of the capacity the checkout case
// measured, for BENCH_SOAK seconds (600 in a full run), in windows; the service's resident memory and p99 of the
// first window are compared with the last. A leak or a table that slows as it grows (audit, orders, idempotency
// records all grow by one row set per checkout) shows as growth.
import autocannon from 'autocannon';
import { trackRun } from './cleanup.ts';
import { round } from './format.ts';
import { autocannonRequest } from './measure.ts';
import type { Child } from './processes.ts';
import { cpuWindow, memoryOf } from './resources.ts';
import { settings } from './settings.ts';
import { checkoutStream, makeCarts } from './write-cases.ts';

/**
 * `backgroundCores`: CPU of every other process on the machine during the window (the machine is shared), in cores;
 * PostgreSQL's own background processes (checkpointer, WAL writer) count here too. `iowaitCores`: CPUs idle with I/O
 * outstanding, in cores (a disk that stalls WAL flushes shows here, not as CPU). Null where /proc is missing.
 */
export type SoakWindow = {
  endS: number; rps: number; p99Ms: number; non2xx: number; rssMb: number | null; backgroundCores: number | null; iowaitCores: number | null;
};
export type SoakResult = {
  ratePerS: number; seconds: number; windows: SoakWindow[];
  rssGrowth: number | null; p99Growth: number | null; failed: number;
};

export async function soak(url: string, keyId: string, key: string, service: Child, capacityRps: number, productIds: readonly string[]): Promise<SoakResult> {
  const ratePerS = Math.max(1, Math.floor(capacityRps / 2));
  const windowS = Math.max(5, Math.round(settings.soakS / 10));
  const count = Math.max(2, Math.round(settings.soakS / windowS));
  const carts = await makeCarts(url, keyId, 'soak', Math.ceil(ratePerS * windowS * count * 1.1) + 100, productIds);
  console.log(`soak: ${ratePerS} checkouts/s (half of ${capacityRps}) for ${windowS * count} s in ${count} windows`);
  const request = autocannonRequest(
    { key: 'soak', server: service, path: '/api/v1/tools/checkout.create_order', bodies: [], auth: true, mcp: false, next: checkoutStream(carts, 'soak') },
    key,
  );
  const windows: SoakWindow[] = [];
  const databaseName = new URL(url).pathname.slice(1);
  for (let i = 0; i < count; i++) {
    const window = await cpuWindow(databaseName, [service.pid]);
    const run = autocannon({ url: `http://127.0.0.1:${service.port}`, connections: settings.connections, overallRate: ratePerS, duration: windowS, requests: [request], timeout: 10 });
    trackRun(run);
    const r = await run;
    trackRun(undefined);
    const { seconds, machine } = await window();
    const backgroundCores = machine ? round(Math.max(0, machine.other) / seconds, 2) : null;
    const iowaitCores = machine ? round(machine.iowait / seconds, 2) : null;
    const w = {
      endS: (i + 1) * windowS, rps: round(r.requests.total / r.duration, 0), p99Ms: r.latency.p99, non2xx: r.non2xx + r.errors + r.timeouts,
      rssMb: memoryOf(service.pid)?.rssMb ?? null, backgroundCores, iowaitCores,
    };
    windows.push(w);
    console.log(
      `  soak ${String(w.endS).padStart(4)} s: ${w.rps} req/s  p99 ${w.p99Ms} ms  RSS ${w.rssMb} MB  other processes ${w.backgroundCores ?? '?'} cores` +
        `  iowait ${w.iowaitCores ?? '?'} cores${w.non2xx ? `  !! ${w.non2xx} failed` : ''}`,
    );
  }
  const first = windows[0];
  const last = windows[windows.length - 1];
  return {
    ratePerS,
    seconds: windowS * count,
    windows,
    rssGrowth: first.rssMb && last.rssMb ? round(last.rssMb / first.rssMb, 3) : null,
    p99Growth: first.p99Ms > 0 ? round(last.p99Ms / first.p99Ms, 2) : null,
    failed: windows.reduce((a, w) => a + w.non2xx, 0),
  };
}
