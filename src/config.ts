import { z } from 'zod';
import { parseDenyList } from './outbound/address-policy.ts';
import { DEFAULT_PG_RUNTIME_DIR } from './db/embedded/reach.ts';
import { trustProxySetting, type TrustProxy } from './http/trust-proxy.ts';
import { SetupError } from './setup-error.ts';
import { parseSecretsKey } from './secrets/secret-box.ts';

const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().min(0);
const port = z.coerce.number().int().min(0).max(65535);

export const PAYMENT_PROVIDERS = ['manual', 'stripe'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];
export const IMAGE_PROVIDERS = ['openverse', 'unsplash', 'pexels'] as const;
export type ImageProviderName = (typeof IMAGE_PROVIDERS)[number];
const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
/** "250ms", "5s", "30m", "2h" → milliseconds. */
const duration = z.string().regex(/^\d+(\.\d+)?(ms|s|m|h)$/, 'must be a duration such as 250ms, 5s, 30m or 2h').transform((v) => {
  const [, amount, unit] = /^([\d.]+)(ms|s|m|h)$/.exec(v)!;
  return Math.round(Number(amount) * DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS]);
});
const secretsKey = z.string().refine((v) => parseSecretsKey(v) !== null);
const durations = z.string().transform((list) => list.split(',').map((d) => d.trim())).pipe(z.array(duration).min(1));

// The only reader of process.env: everything else receives a frozen Config. One flat list, one line per setting:
// its schema, its default, and (in .describe) what it accepts, which is what a bad value's error message names.
// docs/deploy.md lists every setting. Variables not listed here are ignored; an empty value counts as unset.
const ConfigSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1').describe('an interface address to listen on, e.g. 0.0.0.0'),
  PORT: port.default(3000).describe('a TCP port number from 0 to 65535'),
  DATABASE_URL: z.string().url().optional().describe('a postgresql:// URL'),
  DATA_DIR: z.string().min(1).default('.data').describe('a folder path'),
  PG_RUNTIME_DIR: z.string().min(1).default(DEFAULT_PG_RUNTIME_DIR).describe('an absolute folder path'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('fatal, error, warn, info, debug, trace or silent'),
  PUBLIC_BASE_URL: z.string().url().optional().describe('an absolute URL such as https://shop.example.com'),
  RATE_LIMIT_WINDOW_MS: positiveInt.default(60_000).describe('a positive whole number of milliseconds'),
  RATE_LIMIT_ANON_MAX: positiveInt.default(60).describe('a positive whole number of requests'),
  RATE_LIMIT_PREAUTH_MAX: positiveInt.default(120).describe('a positive whole number of requests'),
  RATE_LIMIT_AUTH_MAX: positiveInt.default(600).describe('a positive whole number of requests'),
  RATE_LIMIT_CHECKOUT_MAX: positiveInt.default(300).describe('a positive whole number of requests'),
  RATE_LIMIT_OAUTH_REGISTER_MAX: positiveInt.default(20).describe('a positive whole number of registrations per hour'),
  RATE_LIMIT_OAUTH_AUTHORIZE_MAX: positiveInt.default(60).describe('a positive whole number of requests'),
  RATE_LIMIT_OAUTH_TOKEN_MAX: positiveInt.default(120).describe('a positive whole number of requests'),
  REDIS_URL: z.string().url().optional().describe('a redis:// or rediss:// URL'),
  DB_POOL_MAX: positiveInt.default(10).describe('a positive whole number of connections'),
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576).describe('a positive whole number of bytes'),
  ALLOWED_ORIGINS: z.string().default('').describe('a comma-separated list of origins such as https://app.example.com'),
  TRUST_PROXY: trustProxySetting.default(false).describe(
    'false, a hop count (e.g. 1), or a comma-separated list of proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1; also loopback, linklocal, uniquelocal)',
  ),
  DRAIN_DELAY_MS: nonNegativeInt.default(0).describe('a whole number of milliseconds, 0 or more'),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(15_000).describe('a positive whole number of milliseconds'),
  METRICS_PORT: port.optional().describe('a TCP port number from 0 to 65535'),
  METRICS_HOST: z.string().min(1).default('127.0.0.1').describe('an interface address for the metrics listener, e.g. 0.0.0.0'),
  TOOL_CONTRACTS: z.enum(['log', 'strict']).default('log').describe('log or strict'),
  SECRETS_KEY: secretsKey.optional().describe('at least 32 random bytes in base64 or base64url, e.g. the output of openssl rand -base64 32'),
  SECRETS_KEY_PREVIOUS: secretsKey.optional().describe('the SECRETS_KEY in use before a rotation, in the same format'),
  MCP_STATE_SECRET: z.string().min(32, 'must be at least 32 characters').optional().describe('a secret of at least 32 characters'),
  MCP_DIRECT_CALL: z.enum(['on', 'off']).default('on').describe('on or off'),
  OUTBOUND_ALLOW_PRIVATE: z.enum(['0', '1']).default('0').describe('0 or 1 (1 only for local tests and development)'),
  OUTBOUND_DENY_LIST: z
    .string()
    .default('')
    .transform((list, ctx) => {
      const entries = list.split(',').map((s) => s.trim()).filter(Boolean);
      try {
        parseDenyList(entries);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
      }
      return entries;
    })
    .describe('a comma-separated list of IP addresses and CIDR ranges'),
  IMAGES_PROVIDER: z.enum(IMAGE_PROVIDERS).default('openverse').describe('openverse, unsplash or pexels'),
  OPENVERSE_API_URL: z.url().default('https://api.openverse.org').describe('an https URL'),
  UNSPLASH_API_URL: z.url().default('https://api.unsplash.com').describe('an https URL'),
  UNSPLASH_ACCESS_KEY: z.string().min(1).optional().describe('an Unsplash access key'),
  PEXELS_API_URL: z.url().default('https://api.pexels.com').describe('an https URL'),
  PEXELS_API_KEY: z.string().min(1).optional().describe('a Pexels API key'),
  OAUTH_ISSUER: z.string().url().optional().describe("an external authorization server's issuer URL"),
  OAUTH_EXTRA_RESOURCES: z.string().default('').describe('a comma-separated list of resource URLs'),
  WEBHOOK_RETRY_SCHEDULE: durations.prefault('5s,5m,30m,2h,5h,10h').describe('a comma-separated list of durations such as 5s,5m,30m'),
  WEBHOOK_DISABLE_AFTER: duration.prefault('24h').describe('a duration such as 24h'),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(0).default(16).describe('a whole number of parallel deliveries, 0 or more'),
  WEBHOOK_POLL_INTERVAL: duration.prefault('250ms').describe('a duration such as 250ms'),
  WEBHOOK_LEASE: duration.prefault('60s').describe('a duration such as 60s'),
  SMTP_URL: z
    .url({ protocol: /^smtps?$/ })
    .optional()
    .describe('an smtp:// or smtps:// URL such as smtps://user:password@smtp.example.com:465'),
  MAIL_FROM: z
    .string()
    .refine((v) => parseMailbox(v) !== null)
    .optional()
    .describe('an e-mail address, or a name and address such as Shop <shop@example.com>'),
  MAIL_RETRY_SCHEDULE: durations.prefault('1m,5m,30m,2h,6h,12h').describe('a comma-separated list of durations such as 1m,5m,30m'),
  PAYMENTS_PROVIDER: z.enum(PAYMENT_PROVIDERS).default('manual').describe('manual or stripe'),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/).optional().describe('a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_…)'),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/).optional().describe('the signing secret of the Stripe webhook endpoint (whsec_…)'),
  STRIPE_API_URL: z.url().optional().describe('an http(s) URL of a Stripe-compatible API (tests only)'),
  STRIPE_PAYMENT_METHODS: z
    .string()
    .prefault('card,mobilepay')
    .transform((list) => list.split(',').map((m) => m.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^[a-z_]+$/)).min(1))
    .describe('a comma-separated list of Stripe payment method types, e.g. card,mobilepay'),
  UCP_SIMULATION_SECRET: z.string().min(16, 'must be at least 16 characters').optional().describe('a secret of at least 16 characters (never with NODE_ENV=production)'),
  UCP_CONFORMANCE_KEY: z.string().min(1).optional().describe('an API key with checkout:agent (never with NODE_ENV=production)'),
});

type Settings = z.infer<typeof ConfigSchema>;

export type Config = Readonly<{
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  /** As root: where the embedded PostgreSQL's binaries and cluster go when the postgres user cannot reach DATA_DIR. */
  pgRuntimeDir: string;
  logLevel: Settings['LOG_LEVEL'];
  publicBaseUrl: string | undefined;
  /** checkoutMax: per platform key on the checkout protocols' routes (/acp, /ucp), besides authMax. */
  rateLimit: Readonly<{ windowMs: number; anonMax: number; preauthMax: number; authMax: number; checkoutMax: number }>;
  /** Per-IP limits of the built-in authorization server: registrations per hour, the others per rate-limit window. */
  oauthRateLimit: Readonly<{ registerMax: number; authorizeMax: number; tokenMax: number }>;
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
  /**
   * Encrypts the secrets stored in the database (src/secrets/). `key` seals and opens; `previousKey` only opens, during
   * a rotation. Unset key (never in production): the key generated in DATA_DIR/secrets.key.
   */
  secrets: Readonly<{ key: string | undefined; previousKey: string | undefined }>;
  /** Seals MCP requestState (approval rounds); the same on every instance. Unset: generated once, kept in the database. */
  mcpStateSecret: string | undefined;
  /** tools/call answered without the SDK's per-request server when it provably answers the same (src/mcp/direct-call.ts). */
  mcpDirectCall: boolean;
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
  /**
   * The buyer's e-mails (docs/email.md); undefined without SMTP_URL, and then none is written or sent. `smtpUrl`
   * carries the SMTP password: never log it (`smtpServer` is the part that may be shown).
   */
  email: EmailConfig | undefined;
  /**
   * How orders are paid (docs/payments.md). `stripe` holds the keys (never logged) and, in tests only, the API's
   * address; `paymentMethods` are the Stripe payment method types Checkout may offer.
   */
  payments: Readonly<{
    provider: PaymentProviderName;
    stripe: Readonly<{ secretKey: string; webhookSecret: string; apiUrl: URL | undefined; paymentMethods: readonly string[] }> | undefined;
  }>;
  /** Which peers may tell us the client's address in X-Forwarded-For (false: none, the socket address is the client). */
  trustProxy: TrustProxy;
  /** After SIGTERM, how long /readyz answers 503 while requests are still served, before the listener closes. */
  drainDelayMs: number;
  /** How long draining in-flight requests and closing resources may take before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** A separate listener for GET /metrics; undefined: no metrics are served. */
  metrics: Readonly<{ host: string; port: number }> | undefined;
  /** The agentic checkout protocols (docs/agentic-checkout.md). */
  checkout: Readonly<{
    /** The test payment handler (success, declined, fraud by token) is offered: never when NODE_ENV=production. */
    testPaymentHandler: boolean;
    /** Unlocks POST /testing/simulate-shipping/{id} for conformance runs; unset: the route does not exist. */
    simulationSecret: string | undefined;
    /** The key UCP requests without credentials act with, for the conformance suite (which sends none); unset: 401. */
    conformanceKey: string | undefined;
  }>;
}>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(Object.keys(ConfigSchema.shape).flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
  const parsed = ConfigSchema.safeParse(given);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))] as Array<keyof Settings>;
    // The value itself is not repeated: it may be a secret (a URL with a password, a token).
    throw new SetupError(names.map((name) => `Invalid setting ${name}: expected ${ConfigSchema.shape[name].description}.`).join('\n'));
  }
  const e = parsed.data;
  const problems = crossFieldProblems(e, env.NODE_ENV);
  if (problems.length > 0) throw new SetupError(problems.map((p) => `Invalid setting ${p}.`).join('\n'));
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    pgRuntimeDir: e.PG_RUNTIME_DIR,
    logLevel: e.LOG_LEVEL,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    rateLimit: Object.freeze({
      windowMs: e.RATE_LIMIT_WINDOW_MS,
      anonMax: e.RATE_LIMIT_ANON_MAX,
      preauthMax: e.RATE_LIMIT_PREAUTH_MAX,
      authMax: e.RATE_LIMIT_AUTH_MAX,
      checkoutMax: e.RATE_LIMIT_CHECKOUT_MAX,
    }),
    oauthRateLimit: Object.freeze({
      registerMax: e.RATE_LIMIT_OAUTH_REGISTER_MAX,
      authorizeMax: e.RATE_LIMIT_OAUTH_AUTHORIZE_MAX,
      tokenMax: e.RATE_LIMIT_OAUTH_TOKEN_MAX,
    }),
    redisUrl: e.REDIS_URL,
    dbPoolMax: e.DB_POOL_MAX,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    toolContracts: e.TOOL_CONTRACTS,
    allowedOrigins: Object.freeze(csv(e.ALLOWED_ORIGINS)),
    oauth: Object.freeze({ issuer: e.OAUTH_ISSUER?.replace(/\/$/, ''), extraResources: Object.freeze(csv(e.OAUTH_EXTRA_RESOURCES)) }),
    secrets: Object.freeze({ key: e.SECRETS_KEY, previousKey: e.SECRETS_KEY_PREVIOUS }),
    mcpStateSecret: e.MCP_STATE_SECRET,
    mcpDirectCall: e.MCP_DIRECT_CALL === 'on',
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
    payments: Object.freeze({
      provider: e.PAYMENTS_PROVIDER,
      stripe: e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET
        ? Object.freeze({
          secretKey: e.STRIPE_SECRET_KEY,
          webhookSecret: e.STRIPE_WEBHOOK_SECRET,
          apiUrl: e.STRIPE_API_URL === undefined ? undefined : new URL(e.STRIPE_API_URL),
          paymentMethods: Object.freeze(e.STRIPE_PAYMENT_METHODS),
        })
        : undefined,
    }),
    trustProxy: e.TRUST_PROXY,
    drainDelayMs: e.DRAIN_DELAY_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    metrics: e.METRICS_PORT === undefined ? undefined : Object.freeze({ host: e.METRICS_HOST, port: e.METRICS_PORT }),
    email: e.SMTP_URL === undefined ? undefined : emailConfig(e.SMTP_URL, e.MAIL_FROM, e.PUBLIC_BASE_URL, e.MAIL_RETRY_SCHEDULE),
    checkout: Object.freeze({ testPaymentHandler: env.NODE_ENV !== 'production', simulationSecret: e.UCP_SIMULATION_SECRET, conformanceKey: e.UCP_CONFORMANCE_KEY }),
  });
}

export type Mailbox = Readonly<{ name: string | null; address: string }>;

export type EmailConfig = Readonly<{
  smtpUrl: string;
  /** scheme://host:port of SMTP_URL, without user or password: what logs and the start-up banner show. */
  smtpServer: string;
  /** The sender; without a name in MAIL_FROM the shop's name (from settings) is shown as the sender's name. */
  from: Mailbox;
  /** Waits before the 2nd, 3rd … attempt (ms); after the last, the e-mail has failed. */
  retryScheduleMs: readonly number[];
}>;

const ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

/** "shop@example.com" or "Shop Name <shop@example.com>"; null for anything else. */
export function parseMailbox(value: string): Mailbox | null {
  const named = /^\s*"?([^"<>]*?)"?\s*<([^<>]+)>\s*$/.exec(value);
  const address = (named ? named[2] : value).trim();
  if (!ADDRESS.test(address)) return null;
  return { name: named?.[1].trim() || null, address };
}

function emailConfig(smtpUrl: string, mailFrom: string | undefined, publicBaseUrl: string | undefined, retryScheduleMs: number[]): EmailConfig {
  const url = new URL(smtpUrl);
  const port = url.port || (url.protocol === 'smtps:' ? '465' : '587');
  // Without MAIL_FROM: no-reply at the shop's own host (PUBLIC_BASE_URL), else at the SMTP server's domain.
  // An IP address is no mail domain: then localhost (a development set-up).
  const host = (publicBaseUrl ? new URL(publicBaseUrl).hostname : url.hostname).replace(/^www\./, '');
  const domain = /^[\d.]+$|^\[/.test(host) ? 'localhost' : host;
  const from = mailFrom === undefined ? { name: null, address: `no-reply@${domain}` } : parseMailbox(mailFrom)!;
  return Object.freeze({
    smtpUrl,
    smtpServer: `${url.protocol}//${url.hostname}:${port}`,
    from: Object.freeze(from),
    retryScheduleMs: Object.freeze(retryScheduleMs),
  });
}

/** Rules between settings, reported together with the setting each one is about. */
function crossFieldProblems(e: z.infer<typeof ConfigSchema>, nodeEnv: string | undefined): string[] {
  const problems: string[] = [];
  const allowPrivate = e.OUTBOUND_ALLOW_PRIVATE === '1';
  if (allowPrivate && nodeEnv === 'production') {
    problems.push('OUTBOUND_ALLOW_PRIVATE: must not be 1 when NODE_ENV=production (it lets outbound calls reach private networks)');
  }
  // OAuth is always on (the built-in authorization server, or OAUTH_ISSUER's tokens): its issuer and token audience
  // are this origin, which without the setting would come from each request's Host header.
  if (!e.PUBLIC_BASE_URL && nodeEnv === 'production') {
    problems.push('PUBLIC_BASE_URL: required when NODE_ENV=production (the OAuth issuer and token audience must not come from the Host header); set it to the https URL clients reach the service at');
  }
  for (const name of ['OPENVERSE_API_URL', 'UNSPLASH_API_URL', 'PEXELS_API_URL'] as const) {
    if (!e[name].startsWith('https://') && !(allowPrivate && e[name].startsWith('http://'))) {
      problems.push(`${name}: must be an https URL (plain http only with OUTBOUND_ALLOW_PRIVATE=1)`);
    }
  }
  if (!e.SECRETS_KEY && nodeEnv === 'production') {
    problems.push('SECRETS_KEY: required when NODE_ENV=production (it encrypts the secrets kept in the database; make one with openssl rand -base64 32)');
  }
  if (e.UCP_CONFORMANCE_KEY && nodeEnv === 'production') {
    problems.push('UCP_CONFORMANCE_KEY: must not be set when NODE_ENV=production (it lets UCP requests without credentials act as a platform)');
  }
  if (e.UCP_SIMULATION_SECRET && nodeEnv === 'production') {
    problems.push('UCP_SIMULATION_SECRET: must not be set when NODE_ENV=production (it unlocks a test route that ships orders)');
  }
  if (e.SECRETS_KEY_PREVIOUS && !e.SECRETS_KEY) problems.push('SECRETS_KEY_PREVIOUS: only together with SECRETS_KEY, the key that replaces it');
  if (e.IMAGES_PROVIDER === 'unsplash' && !e.UNSPLASH_ACCESS_KEY) problems.push('UNSPLASH_ACCESS_KEY: required when IMAGES_PROVIDER=unsplash');
  if (e.MAIL_FROM && !e.SMTP_URL) problems.push('MAIL_FROM: only together with SMTP_URL, the server that sends the e-mails');
  if (e.IMAGES_PROVIDER === 'pexels' && !e.PEXELS_API_KEY) problems.push('PEXELS_API_KEY: required when IMAGES_PROVIDER=pexels');
  if (e.PAYMENTS_PROVIDER === 'stripe') {
    if (!e.STRIPE_SECRET_KEY) problems.push('STRIPE_SECRET_KEY: required when PAYMENTS_PROVIDER=stripe');
    if (!e.STRIPE_WEBHOOK_SECRET) problems.push('STRIPE_WEBHOOK_SECRET: required when PAYMENTS_PROVIDER=stripe (Stripe shows it for the webhook endpoint, or `stripe listen` prints it)');
  }
  if (e.STRIPE_API_URL && !e.STRIPE_API_URL.startsWith('https://') && !(allowPrivate && e.STRIPE_API_URL.startsWith('http://'))) {
    problems.push('STRIPE_API_URL: must be an https URL (plain http only with OUTBOUND_ALLOW_PRIVATE=1)');
  }
  if (e.STRIPE_API_URL && nodeEnv === 'production') problems.push('STRIPE_API_URL: only for tests; leave it unset in production (the SDK talks to api.stripe.com)');
  return problems;
}

function csv(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}
