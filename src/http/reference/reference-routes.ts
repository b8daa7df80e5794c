import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { PATHS } from '../paths.ts';

// /docs: the API reference, rendered in the browser by Redoc's standalone bundle from /openapi.json. Everything the
// page loads is served by this service (the pinned bundle straight from node_modules), so the page works offline and
// its Content-Security-Policy names no other host.

const ASSETS = `${PATHS.docs}/assets`;
const BUNDLE_PATH = `${ASSETS}/redoc.standalone.js`;
const INIT_PATH = `${ASSETS}/init.js`;

/**
 * Scripts only from this origin; Redoc injects its styles at run time (styled-components), and its search index
 * runs in a worker it starts from a blob: URL.
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent API reference</title><link rel="icon" href="data:,"></head>
<body><noscript>This reference needs JavaScript. The same content is machine-readable at <a href="${PATHS.openapi}">${PATHS.openapi}</a>; problem codes are listed at <a href="${PATHS.problemIndex}">${PATHS.problemIndex}</a>.</noscript>
<div id="reference"></div>
<script src="${BUNDLE_PATH}"></script>
<script src="${INIT_PATH}"></script>
</body></html>
`;

// Options: https://redocly.com/docs/redoc/config — expand the success response, keep the download button.
const INIT = `Redoc.init('${PATHS.openapi}', {
  expandResponses: '200',
  jsonSampleExpandLevel: 3,
  pathInMiddlePanel: true,
  hideHostname: false,
  theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' }, code: { fontFamily: 'ui-monospace, monospace' } } }
}, document.getElementById('reference'));
`;

const resolveAsset = createRequire(import.meta.url).resolve;

// The bundle's one reference to another host: the "API docs by Redocly" sidebar mark, an <img> from Redocly's CDN.
// It is swapped for an empty inline image (the credit text stays); the browser test fails on any other such request.
const FOREIGN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E';

function readBundle(): Buffer {
  const source = readFileSync(resolveAsset('redoc/bundles/redoc.standalone.js'), 'utf8');
  return Buffer.from(source.replaceAll(FOREIGN_LOGO, EMPTY_IMAGE));
}

export function registerReference(app: FastifyInstance): void {
  // Read on first use: the bundle is ~1 MB and most processes (tests, CLI) never serve it.
  let bundle: Buffer | undefined;
  const html = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': REFERENCE_CSP, 'Cache-Control': 'public, max-age=300' };
  const script = { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' };

  app.get(PATHS.docs, async (_req, reply) => reply.headers(html).send(PAGE));
  app.get(INIT_PATH, async (_req, reply) => reply.headers(script).send(INIT));
  app.get(BUNDLE_PATH, async (_req, reply) => {
    bundle ??= readBundle();
    return reply.headers(script).send(bundle);
  });
}
