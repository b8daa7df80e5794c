import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDb } from './db/client.ts';
import { openDatabase } from './db/open-database.ts';
import { startDeliveryWorker } from './events/delivery-worker.ts';
import { serviceSafeFetch } from './outbound/service-client.ts';
import { onShutdownSignal } from './shutdown.ts';
import { logDestination } from './log-format.ts';
import { announceStartup } from './startup-banner.ts';

// The only entry that listens: config → database (embedded if needed) → migrations → app → listen → graceful stop.
const config = loadConfig();

// Installed before anything starts, so a signal during start-up still stops what was already started (an
// embedded PostgreSQL must never be orphaned). Resources close in reverse order of opening.
const closers: Array<() => Promise<unknown> | unknown> = [];
const closeAll = async () => {
  for (const close of closers.reverse()) await close();
};
onShutdownSignal(
  async (signal) => {
    console.log(`[server] ${signal}: draining in-flight requests, then stopping`);
    await closeAll();
  },
  { forceAfterMs: 15_000, log: (msg) => console.error(`[server] ${msg}`) },
);

try {
  const database = await openDatabase(config, (msg) => console.log(`[db] ${msg}`));
  closers.push(() => database.stop());
  const db = createDb({ connectionString: database.url, poolMax: config.dbPoolMax });
  closers.push(() => db.$disconnect());
  // Shared rate-limit counters when several instances run; in-process counters otherwise.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
  if (redis) closers.push(() => redis.disconnect());
  const app = await buildApp(config, { db, redis, logStream: await logDestination() });
  // Closed after the app (closers run in reverse): deliveries in flight finish before the database goes.
  const webhooks = startDeliveryWorker({ db, config, log: app.log, fetch: serviceSafeFetch(config) });
  closers.push(() => webhooks.stop());
  // app.close() stops accepting connections and resolves once in-flight requests have been answered.
  closers.push(() => app.close());
  await app.listen({ host: config.host, port: config.port });
  announceStartup(app, config);
} catch (err) {
  console.error('[server] failed to start:', err);
  await closeAll();
  process.exit(1);
}
