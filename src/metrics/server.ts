import http from 'node:http';
import type { Metrics } from './metrics.ts';

/**
 * GET /metrics on a listener of its own (METRICS_HOST:METRICS_PORT, loopback unless configured otherwise), never on
 * the public port: a balancer that forwards the service's port cannot expose it by accident, and Prometheus scrapes
 * each instance directly. Resolves with a close function once listening.
 */
export async function serveMetrics(metrics: Metrics, opts: { host: string; port: number }): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served here.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: opts.host, port: opts.port }, resolve);
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
