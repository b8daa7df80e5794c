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
} & ClientDescription & {
  /** The name the client declared about itself; untrusted text. */
  clientName: string | null;
  redirectUri: string;
  resource: string;
  scopes: { scope: string; words: string }[];
  /** The shop's name (settings), so the operator knows which shop they open up. */
  shopName: string;
  error?: string;
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1b1b1b}
main{max-width:36rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border:1px solid #ccc;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}code{font-size:.9em;background:#eee;padding:0 .2em;border-radius:3px}
fieldset{border:1px solid #ccc;border-radius:6px;margin:1rem 0}.scope{margin:.3rem 0}
label{cursor:pointer}input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;margin:.3rem 0 .8rem}
button{font:inherit;padding:.5rem 1.2rem;margin-right:.6rem;border-radius:6px;border:1px solid #1b1b1b;cursor:pointer}
.approve{background:#1b5e20;color:#fff;border-color:#1b5e20}.deny{background:#fff;color:#1b1b1b}
.error{background:#fdecea;border:1px solid #b71c1c;color:#7f0000;padding:.5rem 1rem;border-radius:6px}.muted{color:#555}
.warning{background:#fff4e5;border:1px solid #e65100;color:#4e2600;padding:.5rem 1rem;border-radius:6px}
code{overflow-wrap:anywhere}
@media (max-width:40rem){main{margin:1rem;padding:1rem 1.25rem}}`;

/** What the consent page says about who asks: see describeClient. */
export type ClientDescription = {
  /** Where the answer goes: the host (or app URI scheme) of this request's redirect URI. */
  clientHost: string;
  /** How the client identified itself, in words. */
  clientKind: string;
  /** The host the client says it comes from: its client_id URL's, or the client_uri (or host-like name) it registered. */
  claimedHost: string | null;
  /** Hosts among its redirect URIs other than claimedHost: where it can send the operator's answer instead. */
  elsewhere: string[];
};

/** A redirect URI as a place: its host (with port), or its scheme for an app's own URI scheme (com.example.app:). */
function placeOf(uri: URL): string {
  return uri.host || uri.protocol;
}

const HOST_LIKE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/**
 * Who asks, for the operator. A client metadata document's client_id URL proves only that its owner controls that
 * host; a registered client proves nothing. Neither makes the redirect URIs trustworthy: the operator's answer (the
 * authorization code) goes to the redirect URI, so that host is what the page names first, and when any redirect
 * URI is on another host than the one the client claims (its client_id URL, or the client_uri or host-like name
 * it registered), the page says so instead of letting the claimed host vouch for it.
 */
export function describeClient(c: { clientId: string; clientName: string | null; clientUri: string | null; redirectUri: string; redirectUris: readonly string[] }): ClientDescription {
  const byDocument = URL.canParse(c.clientId) && new URL(c.clientId).protocol === 'https:';
  const declared = c.clientUri && URL.canParse(c.clientUri) ? new URL(c.clientUri) : c.clientName && HOST_LIKE.test(c.clientName.trim()) ? new URL(`https://${c.clientName.trim()}`) : null;
  const claimed = byDocument ? new URL(c.clientId) : declared;
  const redirects = [c.redirectUri, ...c.redirectUris].filter((u) => URL.canParse(u)).map((u) => new URL(u));
  return {
    clientHost: redirects.length > 0 ? placeOf(redirects[0]) : c.clientId,
    clientKind: byDocument ? `identified by its client metadata document on ${claimed?.host}` : 'registered itself with this shop; its identity is not verified',
    claimedHost: claimed?.host ?? null,
    elsewhere: claimed ? [...new Set(redirects.filter((u) => u.hostname !== claimed.hostname).map(placeOf))] : [],
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>\n${body}\n</main></body></html>\n`;
}

/**
 * The operator's consent page. Everything the client declared is escaped; the client is named first by where the
 * answer goes (its redirect URI's host), since its declared name, and even its client_id host, are only claims
 * about the redirect URIs.
 */
export function renderConsentPage(v: ConsentView): string {
  const declared = v.clientName ? ` calling itself “${escapeHtml(v.clientName)}”` : '';
  const elsewhere = v.elsewhere.map(escapeHtml).join(' or ');
  const warning =
    v.claimedHost && v.elsewhere.length > 0
      ? `<p class="warning" role="alert"><strong>This app will send you back to ${elsewhere}, not to ${escapeHtml(v.claimedHost)}.</strong>
It says it comes from ${escapeHtml(v.claimedHost)}, but what you approve is handed to ${elsewhere}. Approve only if you trust ${elsewhere}.</p>\n`
      : '';
  const scopes = v.scopes
    .map(
      (s, i) =>
        `<div class="scope"><input type="checkbox" id="scope-${i}" name="scope" value="${escapeHtml(s.scope)}" checked> ` +
        `<label for="scope-${i}">${escapeHtml(s.words)} <code>${escapeHtml(s.scope)}</code></label></div>`,
    )
    .join('\n');
  return page(
    `Connect ${v.clientHost} to ${v.shopName}`,
    `<h1>Allow <strong>${escapeHtml(v.clientHost)}</strong> to use ${escapeHtml(v.shopName)}?</h1>
${warning}<p>An application whose answer goes to <strong>${escapeHtml(v.clientHost)}</strong> (${escapeHtml(v.clientKind)})${declared} asks to act on your shop, ${escapeHtml(v.shopName)}, through
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
