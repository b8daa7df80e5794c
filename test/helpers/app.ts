import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createKey } from '../../src/auth/key-admin.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createDb, type Db } from '../../src/db/client.ts';
import type { Tool } from '../../src/registry/define-tool.ts';
import { openSecretBox } from '../../src/secrets/key-file.ts';
import type { SecretBox } from '../../src/secrets/secret-box.ts';
import { SCOPES, type Scope } from '../../src/registry/scopes.ts';
import { createTestDatabase } from './database.ts';
import { TEST_SECRETS_KEY } from './secrets-key.ts';

export type TestApp = {
  app: FastifyInstance;
  /** The test's own client on the app's database (its queries are not counted by `onQuery`). */
  db: Db;
  /** Connection URL of the app's database. */
  url: string;
  config: Config;
  /** The app's secret box (SECRETS_KEY: TEST_SECRETS_KEY unless `env` names another), e.g. for a delivery worker. */
  secrets: SecretBox;
  /** A fresh key with these scopes (default: all 20). */
  key: (scopes?: readonly Scope[]) => Promise<string>;
  /** POST /api/v1/tools/<name> with a JSON body and optional Bearer key. */
  call: (name: string, body?: unknown, key?: string, extra?: Partial<InjectOptions>) => Promise<LightMyRequestResponse>;
  close: () => Promise<void>;
};

/**
 * The whole service on its own freshly migrated database. Rate limits are high by default so functional tests
 * never trip them; limiter tests pass their own env.
 */
export async function createTestApp(
  opts: {
    env?: Record<string, string>;
    tools?: readonly Tool[];
    /** Connections of the app's pool (default 5); 1 makes every query of the test run in one session. */
    poolMax?: number;
    /** Called for every query the app itself sends (the app then gets its own client on the same database). */
    onQuery?: () => void;
    /** An ioredis client for the rate-limit counters (as REDIS_URL gives the server). */
    redis?: unknown;
  } = {},
): Promise<TestApp> {
  const database = await createTestDatabase(opts.poolMax);
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    TOOL_CONTRACTS: 'strict',
    RATE_LIMIT_ANON_MAX: '100000',
    RATE_LIMIT_PREAUTH_MAX: '100000',
    RATE_LIMIT_AUTH_MAX: '100000',
    RATE_LIMIT_CHECKOUT_MAX: '100000',
    RATE_LIMIT_OAUTH_REGISTER_MAX: '100000',
    RATE_LIMIT_OAUTH_AUTHORIZE_MAX: '100000',
    RATE_LIMIT_OAUTH_TOKEN_MAX: '100000',
    DATABASE_URL: database.url,
    SECRETS_KEY: TEST_SECRETS_KEY,
    ...opts.env,
  });
  const secrets = await openSecretBox(config);
  const appDb = opts.onQuery ? createDb({ connectionString: database.url, poolMax: 5, onQuery: opts.onQuery }) : database.db;
  const app = await buildApp(config, { db: appDb, tools: opts.tools, redis: opts.redis, secrets });
  await app.ready();
  return {
    app,
    db: database.db,
    url: database.url,
    config,
    secrets,
    key: async (scopes = SCOPES) => (await createKey(database.db, { name: 'test', scopes: [...scopes] })).key,
    call: (name, body = {}, key, extra = {}) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/tools/${name}`,
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...(extra.headers ?? {}) },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
        ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'headers')),
      }),
    close: async () => {
      await app.close();
      if (appDb !== database.db) await appDb.$disconnect().catch(() => {});
      await database.drop();
    },
  };
}
