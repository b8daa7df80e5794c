import { buildApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { createDb } from './db/client.ts';
import { openDatabase } from './db/open-database.ts';
import { DELIVERY_WORKER_CONNECTIONS, startDeliveryWorker } from './events/delivery-worker.ts';
import { startEmailWorker } from './email/worker.ts';
import { serviceSafeFetch } from './outbound/service-client.ts';
import { connectRedis } from './db/redis.ts';
import type { Lifecycle } from './http/health.ts';
import { createMetrics } from './metrics/metrics.ts';
import { startOAuthHousekeeping } from './oauth/housekeeping.ts';
import { startSessionSweep } from './services/checkout-sessions.ts';
import { serveMetrics } from './metrics/server.ts';
import { listenFailure, SetupError } from './setup-error.ts';
import { onShutdownSignal } from './shutdown.ts';
import { logDestination } from './log-format.ts';
import { announceStartup } from './startup-banner.ts';
import { processLog } from './process-log.ts';
import { openSecretBox } from './secrets/key-file.ts';
import { sealStoredSecrets } from './secrets/stored-secrets.ts';

// The only entry that listens: config → database (embedded if needed) → migrations → app → listen → graceful stop.
// Its own lines are JSON lines like the service's logs unless stdout is a terminal (src/process-log.ts).
const { info: log, error: fail } = processLog('server');
const dbLog = processLog('db');

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof SetupError)) throw err;
  fail(err.message);
  process.exit(1);
}

// Installed before anything starts, so a signal during start-up still stops what was already started (an
// embedded PostgreSQL must never be orphaned). Resources close in reverse order of opening.
const closers: Array<() => Promise<unknown> | unknown> = [];
const closeAll = async () => {
  for (const close of closers.reverse()) await close();
};
const lifecycle: Lifecycle = { draining: false };
let listening = false;
onShutdownSignal(
  async (signal) => {
    lifecycle.draining = true;
    if (listening && config.drainDelayMs > 0) {
      // Readiness fails first; the balancer notices within its check interval and sends new requests elsewhere.
      log(`${signal}: not ready any more; still serving for ${config.drainDelayMs} ms, then draining`);
      await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
    }
    log(`${signal}: draining in-flight requests, then stopping`);
    await closeAll();
  },
  { forceAfterMs: config.drainDelayMs + config.shutdownTimeoutMs, log: fail },
);

try {
  const secrets = await openSecretBox(config);
  const database = await openDatabase(config, dbLog.info);
  closers.push(() => database.stop());
  const db = createDb({ connectionString: database.url, poolMax: config.dbPoolMax });
  closers.push(() => db.$disconnect());
  // Before anything reads a secret: a wrong SECRETS_KEY stops the start, and rows written before secrets were
  // encrypted are sealed (only sealed values are ever opened).
  const sealed = (await sealStoredSecrets(db, secrets, 'plaintext')).reduce((n, c) => n + c.sealed, 0);
  if (sealed > 0) log(`sealed ${sealed} secrets stored in plaintext by an earlier release`);
  // Shared rate-limit counters when several instances run; in-process counters otherwise.
  const redis = config.redisUrl ? connectRedis(config.redisUrl, { warn: fail, info: log }) : undefined;
  if (redis) closers.push(() => redis.disconnect());
  const metrics = config.metrics ? createMetrics(db) : undefined;
  const app = await buildApp(config, { db, redis, lifecycle, metrics, secrets, logStream: await logDestination() });
  // The delivery worker's own two connections (one claim and one batch of attempts at a time): its statements must
  // not queue behind the requests' transactions, or delivery lag grows with the write load (docs/webhooks.md).
  const workerDb = createDb({ connectionString: database.url, poolMax: DELIVERY_WORKER_CONNECTIONS });
  closers.push(() => workerDb.$disconnect());
  // Closed after the app (closers run in reverse): deliveries in flight finish before the database goes.
  const webhooks = startDeliveryWorker({ db: workerDb, config, log: app.log, fetch: serviceSafeFetch(config), secrets });
  closers.push(() => webhooks.stop());
  // The buyer's e-mails (docs/email.md), with a connection of their own for the same reason; without SMTP_URL none
  // is written or sent, which the start-up banner says.
  if (config.email) {
    const emailDb = createDb({ connectionString: database.url, poolMax: 1 });
    closers.push(() => emailDb.$disconnect());
    const emails = startEmailWorker({ db: emailDb, email: config.email, log: app.log });
    closers.push(() => emails.stop());
  }
  // Expired checkout sessions of the checkout protocols are closed (docs/agentic-checkout.md).
  const sweep = startSessionSweep({ db, log: app.log });
  closers.push(() => sweep.stop());
  // Expired authorization-server records and registered clients unused for 7 days (docs/oauth.md).
  if (!config.oauth.issuer) {
    const housekeeping = startOAuthHousekeeping({ db, log: app.log });
    closers.push(() => housekeeping.stop());
  }
  // app.close() stops accepting connections and resolves once in-flight requests have been answered.
  closers.push(() => app.close());
  if (metrics && config.metrics) {
    const at = config.metrics;
    const served = await serveMetrics(metrics, at).catch((err: unknown) => {
      throw listenFailure(err, { host: 'METRICS_HOST', port: 'METRICS_PORT' }, at);
    });
    closers.push(() => served.close());
    log(`metrics on http://${at.host}:${served.port}/metrics`);
  }
  await app.listen({ host: config.host, port: config.port }).catch((err: unknown) => {
    throw listenFailure(err, { host: 'HOST', port: 'PORT' }, config);
  });
  listening = true;
  announceStartup(app, config);
} catch (err) {
  // A problem the operator fixes in the environment is one line; anything else keeps its stack for a bug report.
  fail(err instanceof SetupError ? err.message : `failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await closeAll();
  process.exit(1);
}
