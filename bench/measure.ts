// Measuring: a group's legs (service and baseline sides of its cases) are warmed up, then measured in rounds
// that alternate between the legs. On a shared 2-core machine the background load drifts; interleaving makes
// every ratio compare windows that saw the same drift.
import autocannon, { type AutocannonRequest, type RawResult } from 'autocannon';
import { headersFor, type McpRequest } from './cases.ts';
import { trackRun } from './cleanup.ts';
import { round } from './format.ts';
import type { Child } from './processes.ts';
import { cpuWindow } from './resources.ts';
import { settings } from './settings.ts';
import type { Flow, Stream } from './write-cases.ts';

export type Leg = {
  key: string; server: Child; path: string; bodies: string[]; auth: boolean; mcp: McpRequest | false; pages?: string[];
  /** Each request taken from this stream instead of the bodies. */
  next?: Stream;
  /** Several requests per unit instead (req/s counts units); latencies stay per request. */
  flow?: Flow;
  connections?: number;
};

export type Measurement = {
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU milliseconds per request spent in the measured server process / in its PostgreSQL backends. */
  cpuMsPerReq: number | null;
  pgCpuMsPerReq: number | null;
};

type GroupMeasurement = {
  legs: Map<string, Measurement>;
  /** Average CPU (in cores) used during the measured windows by processes other than the bench's own. */
  backgroundCores: number | null;
};

export function autocannonRequest(leg: Leg, key: string): AutocannonRequest {
  if (leg.pages) {
    const pages = leg.pages;
    let page = 0;
    return { method: 'GET', path: pages[0], setupRequest: (req) => ({ ...req, path: pages[page++ % pages.length] }) };
  }
  const headers = headersFor(leg, key);
  const { next: stream } = leg;
  if (stream) {
    return { method: 'POST', path: leg.path, headers, setupRequest: (req) => {
      const r = stream();
      return { ...req, body: r.body, headers: { ...headers, ...r.headers } };
    } };
  }
  if (leg.bodies.length === 1) return { method: 'POST', path: leg.path, headers, body: leg.bodies[0] };
  let next = 0;
  return { method: 'POST', path: leg.path, headers, setupRequest: (req) => ({ ...req, body: leg.bodies[next++ % leg.bodies.length] }) };
}

export async function measureGroup(legs: Leg[], key: string, databaseName: string, processes: Child[]): Promise<GroupMeasurement> {
  const rounds = Math.max(1, settings.rounds);
  const slice = settings.durationS / rounds;
  const requests = new Map(legs.map((l) => [l.key, l.flow ? l.flow.requests(headersFor(l, key)) : [autocannonRequest(l, key)]]));
  const opts = (leg: Leg) => ({ url: `http://127.0.0.1:${leg.server.port}`, connections: leg.connections ?? settings.connections, requests: requests.get(leg.key)!, timeout: 10 });

  // Warm-up (JIT, connection pools, PostgreSQL caches), so the measured windows see the steady state.
  for (const leg of legs) {
    const warmup = autocannon({ ...opts(leg), duration: settings.warmupS });
    trackRun(warmup);
    await warmup;
  }

  const raw = new Map<string, RawResult[]>(legs.map((l) => [l.key, []]));
  const cpu = new Map<string, { own: number; pg: number }>(legs.map((l) => [l.key, { own: 0, pg: 0 }]));
  let foreign = 0;
  let elapsed = 0;
  let foreignKnown = true;
  for (let r = 0; r < rounds; r++) {
    // Alternate the order every round, so no leg always runs right after another.
    for (const leg of r % 2 === 0 ? legs : [...legs].reverse()) {
      const window = await cpuWindow(databaseName, processes.map((p) => p.pid));
      const run = autocannon({ ...opts(leg), duration: slice, skipAggregateResult: true });
      trackRun(run);
      raw.get(leg.key)!.push(await run);
      trackRun(undefined);
      const used = await window();
      const c = cpu.get(leg.key)!;
      c.own += used.own[processes.indexOf(leg.server)];
      c.pg += used.pg;
      if (used.machine) {
        foreign += used.machine.other;
        elapsed += used.seconds;
      } else {
        foreignKnown = false;
      }
    }
  }

  const out = new Map<string, Measurement>();
  for (const leg of legs) {
    const results = raw.get(leg.key)!;
    const merged = autocannon.aggregateResult(results, { url: `http://127.0.0.1:${leg.server.port}`, connections: settings.connections });
    const total = results.reduce((a, r) => a + r.totalCompletedRequests, 0);
    const seconds = results.reduce((a, r) => a + r.duration, 0);
    const perReq = (s: number) => (Number.isFinite(s) && total > 0 ? round((s * 1000) / total, 3) : null);
    const c = cpu.get(leg.key)!;
    out.set(leg.key, {
      rps: round(total / (leg.flow?.perUnit ?? 1) / seconds, 0),
      p50Ms: merged.latency.p50,
      p90Ms: merged.latency.p90,
      p99Ms: merged.latency.p99,
      maxMs: merged.latency.max,
      requests: total,
      non2xx: merged.non2xx,
      errors: merged.errors,
      timeouts: merged.timeouts,
      cpuMsPerReq: perReq(c.own),
      pgCpuMsPerReq: perReq(c.pg),
    });
  }
  return { legs: out, backgroundCores: foreignKnown && elapsed > 0 ? round(Math.max(0, foreign) / elapsed, 2) : null };
}
