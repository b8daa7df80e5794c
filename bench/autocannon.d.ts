// autocannon 8 ships no type declarations (and there is no @types/autocannon for v8): the part of its
// programmatic API bench/run.ts uses, as documented in its README ("API" section).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export type AutocannonRequest = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before each request is sent; returns the request to send (here: the next body of a rotation). */
    setupRequest?: (req: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
    /** Called with each response (its body as text): what a later request of the sequence needs goes into `context`. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  };

  export type AutocannonOptions = {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** A run before the measured one whose results are discarded (returned as result.warmup). */
    warmup?: { connections?: number; duration?: number };
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: AutocannonRequest[];
    /** Requests per second across all connections (default: as fast as the server answers). */
    overallRate?: number;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    /** Resolve with the raw result (encoded histograms), to be merged with aggregateResult. */
    skipAggregateResult?: boolean;
  };

  /** What a run with skipAggregateResult resolves with: histograms encoded, counters as totals. */
  export type RawResult = {
    latencies: string;
    requests: string;
    throughput: string;
    totalCompletedRequests: number;
    totalRequests: number;
    totalBytes: number;
    samples: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    /** Seconds. */
    duration: number;
    start: Date;
    finish: Date;
    statusCodeStats: Record<string, { count: number }>;
  };

  /** Percentiles are keyed p0_001 … p99_999 (p2_5, p97_5, …). */
  export type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    total?: number;
  };

  export type AutocannonResult = {
    url: string;
    /** Requests completed per one-second sample. */
    requests: Histogram & { total: number; sent: number };
    /** Milliseconds, 2xx responses only; percentiles have 1 ms resolution. */
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    duration: number;
    start: Date;
    finish: Date;
    connections: number;
  };

  export type Instance<R = AutocannonResult> = EventEmitter & PromiseLike<R> & { stop: () => void };

  function autocannon(opts: AutocannonOptions & { skipAggregateResult: true }): Instance<RawResult>;
  function autocannon(opts: AutocannonOptions): Instance;
  namespace autocannon {
    /** Merges raw results of several runs (latency histograms exactly; `requests` per-second stats are not merged). */
    function aggregateResult(results: RawResult[], opts: { url: string; connections?: number }): AutocannonResult;
  }
  export default autocannon;
}
