import closeWithGrace from 'close-with-grace';
import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDb } from './db/client.ts';
import { openDatabase } from './db/open-database.ts';

// The only entry that listens: config → database (embedded if needed) → migrations → app → listen → graceful stop.
const config = loadConfig();
const database = await openDatabase(config, (msg) => console.log(`[db] ${msg}`));
const db = createDb({ connectionString: database.url, poolMax: config.dbPoolMax });
// Shared rate-limit counters when several instances run; in-process counters otherwise.
const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
const app = await buildApp(config, { db, redis });

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'fatal error, shutting down');
  else app.log.info({ signal }, 'shutting down: draining in-flight requests');
  // app.close() stops accepting connections and waits for in-flight requests before resolving.
  await app.close();
  await db.$disconnect();
  redis?.disconnect();
  await database.stop();
});

await app.listen({ host: config.host, port: config.port });
