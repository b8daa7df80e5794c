import { PROBLEMS, problemType, type ProblemCode } from '../errors.ts';
import type { OpenApiDocument } from '../openapi/build-document.ts';

// Server-rendered, self-contained HTML (no scripts, no CDN assets): the human view of /openapi.json and of the
// problem `type` URIs. Everything shown is read from the OpenAPI document or the problem table, never typed twice.

type Json = Record<string, unknown>;

const asObject = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Escapes, then renders the `code` spans the descriptions use; a span naming a problem code links to its page. */
function inline(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, (_m, span: string) =>
    Object.hasOwn(PROBLEMS, span) ? `<a href="/problems/${span}"><code>${span}</code></a>` : `<code>${span}</code>`,
  );
}

/** Blank-line separated paragraphs. */
function prose(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${inline(p)}</p>`)
    .join('\n');
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{background:#f3f3f3;padding:0 .2em;border-radius:3px}table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#fafafa}
section.op{border-top:1px solid #ccc;margin-top:2rem}.tag{display:inline-block;border:1px solid #999;border-radius:3px;padding:0 .4em;margin-right:.3em;font-size:.85em}
.deprecated{border-color:#b00;color:#b00}nav li{margin:.1rem 0}`;

/** Content-Security-Policy for these pages: inline styles only, nothing else may load or run. */
export const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'";

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>\n${body}\n</body></html>\n`;
}

/** One line per field: dotted path, type, required, constraints and description (nested objects to depth 3). */
function fieldRows(schema: Json, prefix = '', depth = 0): string[] {
  const properties = asObject(schema.properties) ?? {};
  const required = new Set(asArray(schema.required));
  return Object.entries(properties).flatMap(([name, raw]) => {
    const field = asObject(raw) ?? {};
    const path = `${prefix}${name}`;
    const row = `<tr><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(typeOf(field))}</td><td>${required.has(name) ? 'yes' : ''}</td><td>${escapeHtml(constraintsOf(field))}</td></tr>`;
    if (depth >= 2) return [row];
    const items = asObject(field.items);
    const nested = asObject(field.properties) ? field : items && asObject(items.properties) ? items : undefined;
    const nestedPrefix = nested === items ? `${path}[].` : `${path}.`;
    return nested ? [row, ...fieldRows(nested, nestedPrefix, depth + 1)] : [row];
  });
}

function typeOf(schema: Json): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  const en = asArray(schema.enum);
  if (en.length) return en.map((v) => JSON.stringify(v)).join(' | ');
  const variants = asArray(schema.oneOf ?? schema.anyOf).map((v) => asObject(v) ?? {});
  if (variants.length) return variants.map(typeOf).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type.map(String) : [asString(schema.type) ?? 'any'];
  return types
    .map((t) => (t === 'array' ? `array of ${typeOf(asObject(schema.items) ?? {})}` : t))
    .map((t) => (schema.format ? `${t} (${String(schema.format)})` : t))
    .join(' | ');
}

function constraintsOf(schema: Json): string {
  const parts: string[] = [];
  const range = (lo: string, hi: string, unit: string) => {
    if (schema[lo] !== undefined || schema[hi] !== undefined) parts.push(`${unit} ${schema[lo] ?? ''}..${schema[hi] ?? ''}`);
  };
  range('minimum', 'maximum', 'value');
  range('minLength', 'maxLength', 'length');
  range('minItems', 'maxItems', 'items');
  if (schema.pattern !== undefined) parts.push(`pattern ${String(schema.pattern)}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  const description = asString(schema.description);
  return [description, parts.join('; ')].filter(Boolean).join(' — ');
}

function resolveRef(doc: OpenApiDocument, value: unknown): Json {
  const ref = asString(asObject(value)?.$ref);
  if (!ref) return asObject(value) ?? {};
  // Only local refs exist in our document: "#/components/<kind>/<name>".
  return ref.slice(2).split('/').reduce<Json>((node, key) => asObject(node[key]) ?? {}, doc as unknown as Json);
}

type Operation = { path: string; op: Json };

function operations(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) => {
    const op = asObject(asObject(item)?.post);
    return op ? [{ path, op }] : [];
  });
}

function renderOperation(doc: OpenApiDocument, { path, op }: Operation): string {
  const id = asString(op.operationId) ?? path;
  const scope = asString(op['x-required-scope']) ?? '';
  const tags = [
    `<span class="tag">scope ${escapeHtml(scope)}</span>`,
    op['x-anonymous'] === true ? '<span class="tag">anonymous</span>' : '<span class="tag">Bearer key</span>',
    op['x-reversible'] === true ? '<span class="tag">reversible with audit.revert</span>' : '',
    op.deprecated === true ? '<span class="tag deprecated">deprecated</span>' : '',
  ].join('');
  const input = jsonBodySchema(doc, op);
  const inputRows = fieldRows(input);
  const events = asArray(op['x-events']).map((e) => `<a href="#event-${escapeHtml(String(e))}"><code>${escapeHtml(String(e))}</code></a>`);
  const responses = Object.entries(asObject(op.responses) ?? {}).map(([status, r]) => {
    return `<tr><td>${escapeHtml(status)}</td><td>${inline(asString(resolveRef(doc, r).description) ?? '')}</td></tr>`;
  });
  return `<section class="op" id="${escapeHtml(id)}">
<h3><code>POST ${escapeHtml(path)}</code> — ${escapeHtml(asString(op.summary) ?? id)}</h3>
<p>${tags}</p>
${prose(asString(op.description) ?? '')}
${events.length ? `<p>Emits: ${events.join(', ')}</p>` : ''}
<h4>Input</h4>
${inputRows.length ? `<table><tr><th>field</th><th>type</th><th>required</th><th>constraints</th></tr>\n${inputRows.join('\n')}</table>` : '<p>No fields: send <code>{}</code>.</p>'}
<h4>Responses</h4>
<table><tr><th>status</th><th>meaning (the problem codes this tool can answer with)</th></tr>\n${responses.join('\n')}</table>
</section>`;
}

const jsonBodySchema = (doc: OpenApiDocument, op: Json): Json =>
  asObject(asObject(asObject(resolveRef(doc, op.requestBody).content)?.['application/json'])?.schema) ?? {};

/** The event catalogue (the document's `webhooks`): what each event means and its payload fields. */
function renderEvents(doc: OpenApiDocument): string {
  const events = Object.entries(asObject(doc.webhooks) ?? {}).flatMap(([type, item]) => {
    const op = asObject(asObject(item)?.post);
    return op ? [{ type, op }] : [];
  });
  const sections = events.map(({ type, op }) => `<section class="op" id="event-${escapeHtml(type)}">
<h3><code>${escapeHtml(type)}</code></h3>
${prose(asString(op.description) ?? '')}
<table><tr><th>field</th><th>type</th><th>required</th><th>constraints</th></tr>\n${fieldRows(jsonBodySchema(doc, op)).join('\n')}</table>
</section>`);
  return `<h2 id="events">Events</h2>
<p>Signed webhooks (Standard Webhooks) for every committed write; subscribe with <a href="#webhooks.create"><code>webhooks.create</code></a>. Each payload is <code>{ id, type, createdAt, data }</code>.</p>
<nav><ul><li>${events.map(({ type }) => `<a href="#event-${escapeHtml(type)}">${escapeHtml(type)}</a>`).join(', ')}</li></ul></nav>
${sections.join('\n')}`;
}

/** The human reference of the API, rendered from the OpenAPI document. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const ops = operations(doc);
  const byTag = new Map<string, Operation[]>();
  for (const o of ops) {
    const tag = asString(asArray(o.op.tags)[0]) ?? 'tools';
    byTag.set(tag, [...(byTag.get(tag) ?? []), o]);
  }
  const nav = [...byTag].map(([tag, list]) =>
    `<li><strong>${escapeHtml(tag)}</strong>: ${list.map(({ op }) => {
      const id = escapeHtml(asString(op.operationId) ?? '');
      return `<a href="#${id}">${id}</a>`;
    }).join(', ')}</li>`,
  );
  const problems = (Object.keys(PROBLEMS) as ProblemCode[]).map(
    (code) => `<tr><td><a href="/problems/${code}"><code>${code}</code></a></td><td>${PROBLEMS[code].status}</td><td>${escapeHtml(PROBLEMS[code].title)}</td></tr>`,
  );
  return page(`${doc.info.title} ${doc.info.version}`, `<h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
${prose(doc.info.description ?? '')}
<p>Machine-readable: <a href="/openapi.json">OpenAPI 3.1 document</a> · <a href="/.well-known/api-catalog">API catalog</a> ·
<a href="/api/mcp/server-card">MCP server card</a> (endpoint <code>/api/mcp</code>). License: ${escapeHtml(doc.info.license?.name ?? '')}.</p>
<h2>Tools</h2>
<nav><ul>${nav.join('\n')}</ul></nav>
${ops.map((o) => renderOperation(doc, o)).join('\n')}
${renderEvents(doc)}
<section class="op" id="problems"><h2>Problem codes</h2>
<table><tr><th>code</th><th>status</th><th>title</th></tr>\n${problems.join('\n')}</table></section>`);
}

/** The page a problem's `type` URI points at: /problems/<code>. */
export function renderProblemPage(code: ProblemCode): string {
  const p = PROBLEMS[code];
  const typeNote = problemType(code).startsWith('/')
    ? ''
    : `<p>Responses with this code use the registered problem type <code>${escapeHtml(problemType(code))}</code>.</p>`;
  return page(`${code}: ${p.title}`, `<h1><code>${escapeHtml(code)}</code> — ${escapeHtml(p.title)}</h1>
<p>HTTP status <strong>${p.status}</strong>. Sent as <code>application/problem+json</code> with <code>"code": "${escapeHtml(code)}"</code>; <code>detail</code> says what went wrong with the particular request.</p>
<h2>What to do</h2>
<p>${escapeHtml(p.resolution)}</p>
${typeNote}
<p><a href="/docs#problems">All problem codes</a> · <a href="/docs">API reference</a></p>`);
}
