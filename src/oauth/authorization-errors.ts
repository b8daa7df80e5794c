import type Provider from 'oidc-provider';
import type { errors, KoaContextWithOIDC } from 'oidc-provider';
import { renderErrorPage } from './consent-page.ts';

/** The library's `renderError`, and what every refused authorization request gets: a script-free page of ours. */
export function sendErrorPage(ctx: KoaContextWithOIDC, error: string, description: string | undefined): void {
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
  ctx.set('Content-Language', 'en');
  ctx.body = renderErrorPage(error, description);
}

/**
 * RFC 9700 §4.11.2: an authorization server redirects only to a redirect URI it trusts. Here anyone may register a
 * client (or publish a client metadata document) with any redirect URI, so before the shop operator has looked at
 * the request on the consent page no redirect URI is trusted, and every error of the authorization endpoint (an
 * unknown client, a redirect URI it did not register, a missing resource or PKCE challenge …) is shown as a page
 * instead of being sent to the client's redirect URI: otherwise a link to /oauth/authorize would be an open redirect
 * on the shop's origin. Errors after the operator's answer (access_denied) come from the resume step and are
 * redirected as usual, which is what the operator chose.
 */
export function showAuthorizationErrorsAsPage(provider: Provider): void {
  const failed = new WeakMap<KoaContextWithOIDC, errors.OIDCProviderError>();
  // The library reports the error it answers with last (it swaps in invalid_redirect_uri for an unregistered URI).
  provider.on('authorization.error', (ctx, err) => failed.set(ctx, err));
  provider.use(async (ctx: KoaContextWithOIDC, next) => {
    await next();
    const err = failed.get(ctx);
    if (!err || ctx.oidc?.route !== 'authorization') return;
    ctx.remove('Location');
    // prompt=none errors carry 303, the status of their redirect; as a page they are a plain 400.
    ctx.status = err.statusCode >= 400 ? err.statusCode : 400;
    sendErrorPage(ctx, err.error, err.error_description);
  });
}
