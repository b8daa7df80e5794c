import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { poolStats, type Db } from '../db/client.ts';
import { PATHS } from '../http/paths.ts';

export type Surface = 'rest' | 'mcp' | 'page';

/** Requests that are not about tools (probes, unknown tool names, MCP methods other than tools/call). */
const NO_TOOL = '-';
const PROBES = new Set<string>([PATHS.livez, PATHS.readyz, PATHS.health]);

export type Metrics = {
  registry: Registry;
  /** Adds the hooks that observe every request of `app`; tool labels are limited to `toolNames`. */
  instrument: (app: FastifyInstance, toolNames: readonly string[]) => void;
};

/**
 * The service's Prometheus metrics, in a registry of their own (a second app in the same process, as in tests, gets
 * its own). Labels have a bounded set of values: tool names come from the registry, never from the request as sent.
 */
export function createMetrics(db: Db): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'agent_api_request_duration_seconds',
    help: 'Requests by surface (rest, mcp, page), tool and HTTP status, with their latency.',
    labelNames: ['surface', 'tool', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'agent_api_rate_limit_refusals_total',
    help: 'Requests refused with 429, by the rate-limit policy that refused them (anon, preauth, key).',
    labelNames: ['policy'] as const,
    registers: [registry],
  });
  const replays = new Counter({
    name: 'agent_api_idempotent_replays_total',
    help: 'Write calls answered from an earlier call with the same Idempotency-Key, by surface.',
    labelNames: ['surface'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'agent_api_db_pool_connections',
    help: 'Database pool connections of this process, by state (in_use, idle).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = poolStats(db);
      this.set({ state: 'in_use' }, stats?.inUse ?? 0);
      this.set({ state: 'idle' }, stats?.idle ?? 0);
    },
  });
  new Gauge({
    name: 'agent_api_db_pool_waiting',
    help: 'Queries waiting for a free database pool connection.',
    registers: [registry],
    collect() {
      this.set(poolStats(db)?.waiting ?? 0);
    },
  });

  const instrument = (app: FastifyInstance, toolNames: readonly string[]) => {
    const known = new Set(toolNames);
    const toolOf = (name: unknown) => (typeof name === 'string' && known.has(name) ? name : NO_TOOL);
    app.addHook('onSend', async (req, reply, payload) => {
      if (isReplay(req, reply, payload)) replays.inc({ surface: surfaceOf(req) });
      return payload;
    });
    app.addHook('onResponse', async (req, reply) => {
      const url = req.routeOptions.url;
      if (url !== undefined && PROBES.has(url)) return;
      const surface = surfaceOf(req);
      const tool = surface === 'rest' ? toolOf(url?.slice(PATHS.toolPrefix.length)) : surface === 'mcp' ? toolOf(mcpToolName(req.body)) : NO_TOOL;
      requests.observe({ surface, tool, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
      if (reply.statusCode === 429) {
        const policy = req.rateLimits?.find((l) => l.exceeded)?.policy;
        if (policy) refusals.inc({ policy });
      }
    });
  };

  return { registry, instrument };
}

function surfaceOf(req: FastifyRequest): Surface {
  const url = req.routeOptions.url;
  if (url?.startsWith(PATHS.toolPrefix)) return 'rest';
  if (url === PATHS.mcp) return 'mcp';
  return 'page';
}

/** The tool a single MCP tools/call names (a batch or any other method: none). */
function mcpToolName(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' ? params?.name : undefined;
}

function isReplay(req: FastifyRequest, reply: FastifyReply, payload: unknown): boolean {
  if (reply.getHeader('idempotent-replayed') === 'true') return true;
  // Over MCP a replay is flagged in the result's _meta; only tools/call answers (a string or a Buffer) are looked at.
  const text = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : undefined;
  return text !== undefined && mcpToolName(req.body) !== undefined && text.includes('"idempotentReplayed":true');
}
