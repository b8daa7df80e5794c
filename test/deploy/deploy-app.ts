// The service on a fresh test database, built with the deploy-related dependencies a test chooses (a lifecycle
// it can set to draining, metrics), since createTestApp builds only the defaults.
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

export type DeployApp = { app: FastifyInstance; database: TestDatabase; close: () => Promise<void> };

export async function createDeployApp(env: Record<string, string> = {}, deps: Omit<AppDeps, 'db'> = {}, database?: TestDatabase): Promise<DeployApp> {
  const db = database ?? (await createTestDatabase());
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: db.url, ...env });
  const app = await buildApp(config, { db: db.db, ...deps });
  await app.ready();
  return {
    app,
    database: db,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
