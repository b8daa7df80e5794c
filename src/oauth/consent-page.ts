import { escapeHtml } from '../http/docs-page.ts';
import { CONSENT, languageOf, textLanguage } from '../i18n/catalogue.ts';
import type { Scope } from '../registry/scopes.ts';

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
  scopes: Scope[];
  /** The shop's name (settings), so the operator knows which shop they open up. */
  shopName: string;
  /** The shop's language setting: the page's words come from its catalogue (src/i18n/). */
  language: string;
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
  /** The host of its client metadata document when it identified itself by one; null when it registered itself. */
  documentHost: string | null;
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
    documentHost: byDocument ? new URL(c.clientId).host : null,
    claimedHost: claimed?.host ?? null,
    elsewhere: claimed ? [...new Set(redirects.filter((u) => u.hostname !== claimed.hostname).map(placeOf))] : [],
  };
}

/** The page in the shop's language: `lang` names the language its text is in. */
function page(language: string, title: string, body: string): string {
  return `<!doctype html>\n<html lang="${escapeHtml(textLanguage(language))}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>\n${body}\n</main></body></html>\n`;
}

/** The words of the consent page and its answers in a shop language. */
export const consentWords = (language: string) => CONSENT[languageOf(language)];

/**
 * The operator's consent page. Everything the client declared is escaped; the client is named first by where the
 * answer goes (its redirect URI's host), since its declared name, and even its client_id host, are only claims
 * about the redirect URIs.
 */
export function renderConsentPage(v: ConsentView): string {
  const m = consentWords(v.language);
  const e = escapeHtml;
  const client = e(v.clientHost);
  const shop = e(v.shopName);
  const elsewhere = v.elsewhere.map(e).join(m.or);
  const warning = v.claimedHost && v.elsewhere.length > 0 ? `<p class="warning" role="alert">${m.sendsElsewhere(elsewhere, e(v.claimedHost))}</p>\n` : '';
  const scopes = v.scopes
    .map(
      (scope, i) =>
        `<div class="scope"><input type="checkbox" id="scope-${i}" name="scope" value="${e(scope)}" checked> ` +
        `<label for="scope-${i}">${e(m.scopes[scope])} <code>${e(scope)}</code></label></div>`,
    )
    .join('\n');
  const request = m.request({
    client,
    kind: v.documentHost === null ? m.selfRegistered : m.byDocument(e(v.documentHost)),
    declared: v.clientName ? m.callingItself(e(v.clientName)) : '',
    shop,
    resource: e(v.resource),
    redirect: e(v.redirectUri),
  });
  return page(
    v.language,
    m.title(v.clientHost, v.shopName),
    `<h1>${m.heading(client, shop)}</h1>
${warning}<p>${request}</p>
${v.error ? `<p class="error" role="alert">${e(v.error)}</p>` : ''}
<form method="post" action="${e(v.action)}">
<input type="hidden" name="csrf_token" value="${e(v.csrfToken)}">
<fieldset><legend>${m.asksTo}</legend>
${scopes}
</fieldset>
<label for="operator_key">${m.operatorKey}</label>
<input type="password" id="operator_key" name="operator_key" autocomplete="off" spellcheck="false">
<p class="muted">${m.keyHelp}</p>
<button class="approve" type="submit" name="decision" value="approve">${m.approve}</button>
<button class="deny" type="submit" name="decision" value="deny">${m.deny}</button>
</form>`,
  );
}

/**
 * A refused authorization request, in the shop's language when it is known (the consent routes), else English (the
 * library's own errors, whose descriptions are English).
 */
export function renderErrorPage(error: string, description: string | undefined, language = 'en'): string {
  const title = consentWords(language).failed;
  return page(language, title, `<h1>${escapeHtml(title)}</h1>\n<p><code>${escapeHtml(error)}</code></p>\n<p>${escapeHtml(description ?? '')}</p>`);
}
