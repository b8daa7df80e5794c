// The service on a fresh test database, built with the deploy-related dependencies a test chooses (a lifecycle
// it can set to draining, metrics), since createTestApp builds only the defaults; and the server entry run once
// with a chosen environment, for start-ups that are meant to fail.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { TEST_SECRETS_KEY } from '../helpers/secrets-key.ts';

export type DeployApp = { app: FastifyInstance; database: TestDatabase; close: () => Promise<void> };

export async function createDeployApp(env: Record<string, string> = {}, deps: Omit<AppDeps, 'db'> = {}, database?: TestDatabase): Promise<DeployApp> {
  const db = database ?? (await createTestDatabase());
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: db.url, ...env });
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

/**
 * The messages of a piped server's error output, one per line. Piped, the server writes only JSON lines, errors at
 * pino's level 50 from the `server` component (src/process-log.ts); a line that is anything else throws.
 */
export function errorMessages(output: string): string {
  return output
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const parsed: unknown = JSON.parse(line);
      const { level, component, msg } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { level?: unknown; component?: unknown; msg?: unknown };
      if (level !== 50 || component !== 'server' || typeof msg !== 'string') throw new Error(`not an error line of the server: ${line}`);
      return `${msg}\n`;
    })
    .join('');
}

/**
 * `node src/server.ts` with only `env` (plus PATH, HOME, NODE_ENV=production and the PUBLIC_BASE_URL and SECRETS_KEY
 * production requires; a value of undefined leaves a variable out) until it exits by itself. `stderr` is the
 * messages of its error lines (errorMessages).
 */
export function runServerUntilExit(env: Record<string, string | undefined>): { code: number | null; stdout: string; stderr: string } {
  const merged: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://127.0.0.1', SECRETS_KEY: TEST_SECRETS_KEY, ...env,
  };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: merged,
    encoding: 'utf8',
    timeout: 40_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: errorMessages(run.stderr) };
}
