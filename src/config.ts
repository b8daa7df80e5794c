import { z } from 'zod';
import { parseDenyList } from './outbound/address-policy.ts';

const positiveInt = z.coerce.number().int().positive();

// The only reader of process.env: everything else receives a frozen Config.
const ConfigSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  RATE_LIMIT_WINDOW_MS: positiveInt.default(60_000),
  RATE_LIMIT_ANON_MAX: positiveInt.default(60),
  RATE_LIMIT_PREAUTH_MAX: positiveInt.default(120),
  RATE_LIMIT_AUTH_MAX: positiveInt.default(600),
  REDIS_URL: z.string().url().optional(),
  DB_POOL_MAX: positiveInt.default(10),
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  ALLOWED_ORIGINS: z.string().default(''),
  TOOL_CONTRACTS: z.enum(['log', 'strict']).default('log'),
  OAUTH_ISSUER: z.string().url().optional(),
  OAUTH_EXTRA_RESOURCES: z.string().default(''),
  OUTBOUND_ALLOW_PRIVATE: z.enum(['0', '1']).default('0'),
  OUTBOUND_DENY_LIST: z.string().default('').transform((list, ctx) => {
    const entries = list.split(',').map((s) => s.trim()).filter(Boolean);
    try {
      parseDenyList(entries);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
    }
    return entries;
  }),
  MCP_STATE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
});

export type Config = Readonly<{
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: z.infer<typeof ConfigSchema>['LOG_LEVEL'];
  publicBaseUrl: string | undefined;
  rateLimit: Readonly<{ windowMs: number; anonMax: number; preauthMax: number; authMax: number }>;
  redisUrl: string | undefined;
  dbPoolMax: number;
  bodyLimitBytes: number;
  /** Extra browser origins allowed to call /api/mcp besides the service's own. */
  allowedOrigins: readonly string[];
  /**
   * A tool raising a problem code it did not declare, or auditing an entity type it did not declare: `log` logs it
   * and answers as usual; `strict` (the test suite and the fuzzer) answers 500 so the gap cannot go unnoticed.
   */
  toolContracts: 'log' | 'strict';
  oauth: Readonly<{
    /** An external authorization server's issuer: set, this service runs none of its own and trusts that one's JWTs. */
    issuer: string | undefined;
    /** Other services' resource URLs the built-in authorization server may issue (JWT) access tokens for. */
    extraResources: readonly string[];
  }>;
  /** The safe outbound HTTP client's address rules (src/outbound). */
  outbound: Readonly<{ allowPrivate: boolean; denyList: readonly string[] }>;
  /** Seals MCP requestState (approval rounds); the same on every instance. Unset: generated once, kept in the database. */
  mcpStateSecret: string | undefined;
}>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${fields}`);
  }
  const e = parsed.data;
  if (e.OUTBOUND_ALLOW_PRIVATE === '1' && env.NODE_ENV === 'production') {
    throw new Error('Invalid configuration: OUTBOUND_ALLOW_PRIVATE: must not be 1 when NODE_ENV=production (it lets outbound calls reach private networks)');
  }
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    rateLimit: Object.freeze({
      windowMs: e.RATE_LIMIT_WINDOW_MS,
      anonMax: e.RATE_LIMIT_ANON_MAX,
      preauthMax: e.RATE_LIMIT_PREAUTH_MAX,
      authMax: e.RATE_LIMIT_AUTH_MAX,
    }),
    redisUrl: e.REDIS_URL,
    dbPoolMax: e.DB_POOL_MAX,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    toolContracts: e.TOOL_CONTRACTS,
    allowedOrigins: Object.freeze(csv(e.ALLOWED_ORIGINS)),
    oauth: Object.freeze({ issuer: e.OAUTH_ISSUER?.replace(/\/$/, ''), extraResources: Object.freeze(csv(e.OAUTH_EXTRA_RESOURCES)) }),
    outbound: Object.freeze({ allowPrivate: e.OUTBOUND_ALLOW_PRIVATE === '1', denyList: Object.freeze(e.OUTBOUND_DENY_LIST) }),
    mcpStateSecret: e.MCP_STATE_SECRET,
  });
}

function csv(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}
