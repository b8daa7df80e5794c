import type { FastifyInstance } from 'fastify';
import { Prisma } from '../generated/prisma/client.ts';
import { queryRows, type Db } from '../db/client.ts';
import { readMigrations } from '../db/migrate.ts';
import { PATHS } from './paths.ts';

/** Shared between the shutdown handler (which sets it) and /readyz (which reports it). */
export type Lifecycle = { draining: boolean };

/** A readiness probe that has not answered by then counts as "database unreachable". */
const READY_TIMEOUT_MS = 2_000;

/**
 * /livez: the process answers (no I/O). /readyz: the database answers, every migration this release knows is applied,
 * and no shutdown has begun; 503 otherwise, so a balancer stops routing here before the listener closes. /health is
 * /livez under its older name. None of them is rate limited or authenticated. The probe paths log only at warn level
 * so that checks every second do not flood the request log; /health, opened by people and older tools, logs as usual.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: { db: Db; lifecycle: Lifecycle }): void {
  const probe = { logLevel: 'warn' as const };
  const live = async () => ({ ok: true });
  app.get(PATHS.livez, probe, live);
  app.get(PATHS.health, live);

  // The release's migrations are read once: they do not change while it runs.
  let known: Promise<string[]> | undefined;
  const databaseReady = singleFlight(async () => checkDatabase(deps.db, await (known ??= migrationNames())));
  app.get(PATHS.readyz, probe, async (_req, reply) => {
    const reason = deps.lifecycle.draining ? 'draining' : await databaseReady();
    if (reason) return reply.code(503).send({ ok: false, reason });
    return { ok: true };
  });

  // While draining, every response closes its connection: keep-alive clients and balancers reconnect elsewhere.
  app.addHook('onSend', async (_req, reply, payload) => {
    if (deps.lifecycle.draining) reply.header('connection', 'close');
    return payload;
  });
}

/** null when ready, else why not. */
async function checkDatabase(db: Db, names: string[]): Promise<string | null> {
  const check = queryRows<{ n: number }>(
    db,
    Prisma.sql`SELECT count(DISTINCT migration_name)::int AS n FROM "_prisma_migrations"
                WHERE migration_name = ANY(${names}) AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  ).then(
    (rows) => (Number(rows[0]?.n) === names.length ? null : 'migrations pending'),
    () => 'database unreachable',
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('database unreachable'), READY_TIMEOUT_MS)));
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function migrationNames(): Promise<string[]> {
  return (await readMigrations()).map((m) => m.name);
}

/** Concurrent probes share one database round trip. */
function singleFlight<T>(fn: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => (running ??= fn().finally(() => (running = undefined)));
}
