import { escapeHtml } from '../http/docs-page.ts';

/** No script at all; inline styles only. The page cannot be framed (clickjacking) and sends no referrer. */
export const CONSENT_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export type ConsentView = {
  action: string;
  csrfToken: string;
  /** The host of the client_id URL (metadata document) or of its redirect URI (registered client). */
  clientHost: string;
  /** How the client identified itself, in words. */
  clientKind: string;
  /** The name the client declared about itself; untrusted text. */
  clientName: string | null;
  redirectUri: string;
  resource: string;
  scopes: { scope: string; words: string }[];
  error?: string;
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1b1b1b}
main{max-width:36rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border:1px solid #ccc;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}code{font-size:.9em;background:#eee;padding:0 .2em;border-radius:3px}
fieldset{border:1px solid #ccc;border-radius:6px;margin:1rem 0}.scope{margin:.3rem 0}
label{cursor:pointer}input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;margin:.3rem 0 .8rem}
button{font:inherit;padding:.5rem 1.2rem;margin-right:.6rem;border-radius:6px;border:1px solid #1b1b1b;cursor:pointer}
.approve{background:#1b5e20;color:#fff;border-color:#1b5e20}.deny{background:#fff;color:#1b1b1b}
.error{background:#fdecea;border:1px solid #b71c1c;color:#7f0000;padding:.5rem 1rem;border-radius:6px}.muted{color:#555}`;

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>\n${body}\n</main></body></html>\n`;
}

/**
 * The operator's consent page. Everything the client declared is escaped; the client is named first by the host
 * it proved (its client_id URL or redirect URI), since its declared name is only a claim.
 */
export function renderConsentPage(v: ConsentView): string {
  const declared = v.clientName ? ` calling itself “${escapeHtml(v.clientName)}”` : '';
  const scopes = v.scopes
    .map(
      (s, i) =>
        `<div class="scope"><input type="checkbox" id="scope-${i}" name="scope" value="${escapeHtml(s.scope)}" checked> ` +
        `<label for="scope-${i}">${escapeHtml(s.words)} <code>${escapeHtml(s.scope)}</code></label></div>`,
    )
    .join('\n');
  return page(
    `Connect ${v.clientHost} to your shop`,
    `<h1>Allow <strong>${escapeHtml(v.clientHost)}</strong> to use your shop?</h1>
<p>An application from <strong>${escapeHtml(v.clientHost)}</strong> (${escapeHtml(v.clientKind)})${declared} asks to act on your shop through
<code>${escapeHtml(v.resource)}</code>. After your answer it is sent back to <code>${escapeHtml(v.redirectUri)}</code>.</p>
${v.error ? `<p class="error" role="alert">${escapeHtml(v.error)}</p>` : ''}
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(v.csrfToken)}">
<fieldset><legend>It asks to</legend>
${scopes}
</fieldset>
<label for="operator_key">Your operator API key</label>
<input type="password" id="operator_key" name="operator_key" autocomplete="off" spellcheck="false">
<p class="muted">You can approve only what your key may do itself. Untick anything you do not want to allow. You can end this access at any time (<code>grants revoke</code> in the CLI).</p>
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="deny" type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function renderErrorPage(error: string, description: string | undefined): string {
  return page('Authorization failed', `<h1>Authorization failed</h1>\n<p><code>${escapeHtml(error)}</code></p>\n<p>${escapeHtml(description ?? '')}</p>`);
}
