import { z } from 'zod';
import { parseDenyList } from './outbound/address-policy.ts';

const positiveInt = z.coerce.number().int().positive();

export const IMAGE_PROVIDERS = ['openverse', 'unsplash', 'pexels'] as const;
export type ImageProviderName = (typeof IMAGE_PROVIDERS)[number];
const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
/** "250ms", "5s", "30m", "2h" → milliseconds. */
const duration = z.string().regex(/^\d+(\.\d+)?(ms|s|m|h)$/, 'must be a duration such as 250ms, 5s, 30m or 2h').transform((v) => {
  const [, amount, unit] = /^([\d.]+)(ms|s|m|h)$/.exec(v)!;
  return Math.round(Number(amount) * DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS]);
});
const durations = z.string().transform((list) => list.split(',').map((d) => d.trim())).pipe(z.array(duration).min(1));

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
  MCP_STATE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  OUTBOUND_ALLOW_PRIVATE: z.enum(['0', '1']).default('0'),
  IMAGES_PROVIDER: z.enum(IMAGE_PROVIDERS).default('openverse'),
  OPENVERSE_API_URL: z.url().default('https://api.openverse.org'),
  UNSPLASH_API_URL: z.url().default('https://api.unsplash.com'),
  UNSPLASH_ACCESS_KEY: z.string().min(1).optional(),
  PEXELS_API_URL: z.url().default('https://api.pexels.com'),
  PEXELS_API_KEY: z.string().min(1).optional(),
  WEBHOOK_RETRY_SCHEDULE: durations.prefault('5s,5m,30m,2h,5h,10h'),
  WEBHOOK_DISABLE_AFTER: duration.prefault('24h'),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(0).default(16),
  WEBHOOK_POLL_INTERVAL: duration.prefault('250ms'),
  WEBHOOK_LEASE: duration.prefault('60s'),
  OUTBOUND_DENY_LIST: z.string().default('').transform((list, ctx) => {
    const entries = list.split(',').map((s) => s.trim()).filter(Boolean);
    try {
      parseDenyList(entries);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
    }
    return entries;
  }),
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
  /** Seals MCP requestState (approval rounds); the same on every instance. Unset: generated once, kept in the database. */
  mcpStateSecret: string | undefined;
  /** The safe outbound HTTP client's address rules (src/outbound). */
  outbound: Readonly<{ allowPrivate: boolean; denyList: readonly string[] }>;
  /** The stock photo provider images.search_stock asks, and each provider's base URL and key (docs/images.md). */
  images: Readonly<{
    provider: ImageProviderName;
    openverse: Readonly<{ baseUrl: string }>;
    unsplash: Readonly<{ baseUrl: string; accessKey: string | undefined }>;
    pexels: Readonly<{ baseUrl: string; apiKey: string | undefined }>;
  }>;
  /** Webhook delivery (docs/webhooks.md). */
  webhooks: Readonly<{
    /** Waits before the 2nd, 3rd … attempt (ms); after the last, the delivery is failed. Jitter is added. */
    retryScheduleMs: readonly number[];
    /** An endpoint whose deliveries have failed for this long without a success is disabled. */
    disableAfterMs: number;
    /** Deliveries in flight per instance; 0: this instance sends none. */
    concurrency: number;
    /** How often an idle worker looks for due deliveries. */
    pollIntervalMs: number;
    /** How long a claimed delivery is reserved for the instance sending it; longer than the 10 s send timeout. */
    leaseMs: number;
  }>;
}>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${fields}`);
  }
  const e = parsed.data;
  const problems = crossFieldProblems(e, env.NODE_ENV);
  if (problems.length > 0) throw new Error(`Invalid configuration: ${problems.join('; ')}`);
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
    allowedOrigins: Object.freeze(e.ALLOWED_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean)),
    toolContracts: e.TOOL_CONTRACTS,
    mcpStateSecret: e.MCP_STATE_SECRET,
    outbound: Object.freeze({ allowPrivate: e.OUTBOUND_ALLOW_PRIVATE === '1', denyList: Object.freeze(e.OUTBOUND_DENY_LIST) }),
    images: Object.freeze({
      provider: e.IMAGES_PROVIDER,
      openverse: Object.freeze({ baseUrl: e.OPENVERSE_API_URL.replace(/\/+$/, '') }),
      unsplash: Object.freeze({ baseUrl: e.UNSPLASH_API_URL.replace(/\/+$/, ''), accessKey: e.UNSPLASH_ACCESS_KEY }),
      pexels: Object.freeze({ baseUrl: e.PEXELS_API_URL.replace(/\/+$/, ''), apiKey: e.PEXELS_API_KEY }),
    }),
    webhooks: Object.freeze({
      retryScheduleMs: Object.freeze(e.WEBHOOK_RETRY_SCHEDULE),
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER,
      concurrency: e.WEBHOOK_CONCURRENCY,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL,
      leaseMs: e.WEBHOOK_LEASE,
    }),
  });
}

/** Rules between settings, reported together with the setting each one is about. */
function crossFieldProblems(e: z.infer<typeof ConfigSchema>, nodeEnv: string | undefined): string[] {
  const problems: string[] = [];
  const allowPrivate = e.OUTBOUND_ALLOW_PRIVATE === '1';
  if (allowPrivate && nodeEnv === 'production') {
    problems.push('OUTBOUND_ALLOW_PRIVATE: must not be 1 when NODE_ENV=production (it lets outbound calls reach private networks)');
  }
  for (const name of ['OPENVERSE_API_URL', 'UNSPLASH_API_URL', 'PEXELS_API_URL'] as const) {
    if (!e[name].startsWith('https://') && !(allowPrivate && e[name].startsWith('http://'))) {
      problems.push(`${name}: must be an https URL (plain http only with OUTBOUND_ALLOW_PRIVATE=1)`);
    }
  }
  if (e.IMAGES_PROVIDER === 'unsplash' && !e.UNSPLASH_ACCESS_KEY) problems.push('UNSPLASH_ACCESS_KEY: required when IMAGES_PROVIDER=unsplash');
  if (e.IMAGES_PROVIDER === 'pexels' && !e.PEXELS_API_KEY) problems.push('PEXELS_API_KEY: required when IMAGES_PROVIDER=pexels');
  return problems;
}
