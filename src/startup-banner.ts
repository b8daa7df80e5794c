import type { FastifyInstance, HTTPMethods } from 'fastify';
import type { Config } from './config.ts';
import { PATHS } from './http/paths.ts';

/** `name` keys the JSON log line, `label` the terminal banner. */
type Place = { name: string; label: string; method: HTTPMethods; route: string; shown: string };

/**
 * What a new user looks for after `npm start`. A place is listed only while its route is registered, so the banner
 * never points at something that is not there; this is the one list to extend (the storefront at / shows up by
 * itself once GET / is served).
 */
const PLACES: readonly Place[] = [
  { name: 'api', label: 'API (POST)', method: 'POST', route: `${PATHS.toolPrefix}:name`, shown: `${PATHS.toolPrefix}<tool.name>` },
  { name: 'docs', label: 'Reference', method: 'GET', route: PATHS.docs, shown: PATHS.docs },
  { name: 'openapi', label: 'OpenAPI', method: 'GET', route: PATHS.openapi, shown: PATHS.openapi },
  { name: 'mcp', label: 'MCP', method: 'POST', route: PATHS.mcp, shown: PATHS.mcp },
  { name: 'storefront', label: 'Storefront', method: 'GET', route: '/', shown: '/' },
];

/** PUBLIC_BASE_URL, else the address the server listens on (a wildcard address is reachable as localhost). */
function baseUrl(app: FastifyInstance, config: Config): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const address = app.server.address();
  if (address === null || typeof address === 'string') return `http://${config.host}:${config.port}`;
  const host = address.address === '0.0.0.0' || address.address === '::' ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * Whether the buyer's e-mails go out (docs/email.md). The SMTP server without user and password: SMTP_URL's secret is
 * never shown.
 */
export function emailStatus(config: Config): string {
  return config.email
    ? `order e-mails sent through ${config.email.smtpServer} from ${config.email.from.address}`
    : 'off: SMTP_URL is not set, so no order confirmations or shipping notices are sent';
}

/**
 * Says once, after listen, where everything is: a short block for a person at a terminal, one structured log line
 * (`msg: "ready"`, `urls` keyed by place) for log collectors otherwise.
 */
export function announceStartup(app: FastifyInstance, config: Config): void {
  const base = baseUrl(app, config);
  const places = PLACES.filter((p) => app.hasRoute({ method: p.method, url: p.route }));
  const email = emailStatus(config);
  if (!process.stdout.isTTY) {
    app.log.info({ urls: Object.fromEntries(places.map((p) => [p.name, `${base}${p.shown}`])), email }, 'ready');
    return;
  }
  const rows = [...places.map((p) => [p.label, `${base}${p.shown}`]), ['API keys', 'npm run --silent cli -- keys create --help'], ['E-mail', email]];
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(`\nAgent API is ready:\n${rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n')}\n\n`);
}
