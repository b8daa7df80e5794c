import { PROBLEMS, problemType, type ProblemCode } from '../errors.ts';

// Server-rendered, self-contained HTML (no scripts, no CDN assets) for the problem `type` URIs: one page per code and
// an index. Everything shown is read from the problem table, never typed twice.

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{background:#f3f3f3;padding:0 .2em;border-radius:3px}table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#fafafa}`;

/** Content-Security-Policy for these pages: inline styles only, nothing else may load or run. */
export const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'";

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>\n${body}\n</body></html>\n`;
}

/** Every problem code with its status and title, each linking to its page. */
export function renderProblemIndex(): string {
  const rows = (Object.keys(PROBLEMS) as ProblemCode[]).map(
    (code) => `<tr><td><a href="/problems/${code}"><code>${code}</code></a></td><td>${PROBLEMS[code].status}</td><td>${escapeHtml(PROBLEMS[code].title)}</td></tr>`,
  );
  return page('Problem codes', `<h1>Problem codes</h1>
<p>Every error is <code>application/problem+json</code> with one of these codes; its <code>type</code> is the code's page.</p>
<table><tr><th>code</th><th>status</th><th>title</th></tr>\n${rows.join('\n')}</table>
<p><a href="/docs">API reference</a></p>`);
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
<p><a href="/problems">All problem codes</a> · <a href="/docs">API reference</a></p>`);
}
