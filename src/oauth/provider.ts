import type { FastifyBaseLogger } from 'fastify';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { SCOPES } from '../registry/scopes.ts';
import { createAdapterFactory } from './adapter.ts';
import { sendErrorPage, showAuthorizationErrorsAsPage } from './authorization-errors.ts';
import { CIMD_CACHE_MIN_SECONDS } from './cimd-fetch.ts';
import { markGrantRevoked } from './grant-admin.ts';
import { touchClient } from './housekeeping.ts';
import type { AuthorizationServerKeys } from './keys.ts';
import type { OidcProviderModule } from './library.ts';
import { OAUTH_PATH, resourcesOf } from './resources.ts';

/** Token lifetimes (seconds); docs/agent-safety.md states them. */
export const TOKEN_TTL = {
  AccessToken: 60 * 60,
  AuthorizationCode: 60,
  RefreshToken: 30 * 24 * 60 * 60,
  Grant: 30 * 24 * 60 * 60,
  Interaction: 10 * 60,
  Session: 10 * 60,
} as const;

/**
 * The library's login prompt, then one consent check: the operator answered in this interaction. Its default
 * consent checks would ask again whenever the operator approved fewer scopes than requested, which is the point
 * of the page; the token then carries exactly what was approved.
 */
function consentPolicy({ interactionPolicy }: OidcProviderModule) {
  const { Prompt, Check, base } = interactionPolicy;
  const login = base().get('login');
  if (!login) throw new Error('oidc-provider has no login prompt');
  const consent = new Prompt(
    { name: 'consent', requestable: true },
    new Check('operator_consent_required', 'the shop operator approves every authorization', (ctx) =>
      ctx.oidc.result?.consent?.grantId ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT,
    ),
  );
  return [login, consent];
}

/**
 * Client ID Metadata Documents: at most 64 KB, cached as long as their Cache-Control says, at least
 * CIMD_CACHE_MIN_SECONDS (src/oauth/cimd-fetch.ts remembers each fetch that long too) and at most a day.
 */
const CIMD_BODY_LIMIT = 64 * 1024;

export const INTERACTION_PATH = `${OAUTH_PATH}/interaction`;

export type ProviderDeps = { db: Db; config: Config; keys: AuthorizationServerKeys; log: FastifyBaseLogger; fetch: typeof fetch };

/**
 * The authorization server for one issuer (`<base>/oauth`): panva's oidc-provider with authorization code + PKCE
 * (S256 only, always required), RFC 8707 resource indicators (required, one of this service's URLs), refresh
 * tokens rotated on every use, RFC 7009 revocation, RFC 9207 `iss`, dynamic registration and Client ID Metadata
 * Documents. The consent step is ours (src/oauth/consent-routes.ts): the operator approves with an API key.
 */
export function createProvider(library: OidcProviderModule, issuer: string, baseUrl: string, deps: ProviderDeps): Provider {
  const { db, config, keys } = deps;
  const { errors } = library;
  const ownResources = new Set(resourcesOf(baseUrl));
  const extraResources = new Set(config.oauth.extraResources);

  const configuration: Configuration = {
    adapter: createAdapterFactory({ db, errors }),
    jwks: { keys: keys.signing },
    cookies: { keys: keys.cookie },
    // The "account" is the operator's API key: its id is the subject of every token the operator approves.
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // Listed for discovery and client registration; what a token gets is decided per resource (getResourceServerInfo)
    // and by the grant the operator approved.
    scopes: ['openid', 'offline_access', ...SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Every authorization asks the operator again: only the grant made by this very interaction counts, never one
    // remembered from an earlier browser session.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Revoking any token of a grant (RFC 7009) ends the whole grant: its refresh token goes too, so nothing half-works.
    revokeGrantPolicy: () => true,
    ttl: { ...TOKEN_TTL },
    interactions: { url: async (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`, policy: consentPolicy(library) },
    // Browser-based MCP hosts call the token endpoint cross-origin; the client's own checks still apply.
    clientBasedCORS: () => true,
    routes: { authorization: '/authorize', token: '/token', registration: '/register', revocation: '/revoke', jwks: '/jwks' },
    fetch: deps.fetch,
    fetchResponseBodyLimits: { 'client_id metadata document': CIMD_BODY_LIMIT },
    renderError: async (ctx, out) => sendErrorPage(ctx, out.error, out.error_description),
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', cacheDuration: { min: CIMD_CACHE_MIN_SECONDS, max: 86_400 } },
      resourceIndicators: {
        enabled: true,
        // RFC 8707 is required here: a token always names the one service it is for.
        defaultResource: () => {
          throw new errors.InvalidTarget('the resource parameter is required: use the URL of the MCP endpoint or API you connect to');
        },
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, resource: string) => {
          const scope = SCOPES.join(' ');
          // Our own URLs get opaque tokens, checked against the database on use so revocation takes effect at once;
          // other services that trust this server verify JWTs (RFC 9068) with its published keys.
          if (ownResources.has(resource)) return { scope, audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: TOKEN_TTL.AccessToken };
          if (extraResources.has(resource)) return { scope, audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: TOKEN_TTL.AccessToken };
          throw new errors.InvalidTarget(`this authorization server issues no tokens for ${resource}`);
        },
      },
    },
  };

  const provider = new library.Provider(issuer, configuration);
  // The forwarded headers it then reads are never the peer's: pinOrigin (request-origin.ts) writes them from
  // PUBLIC_BASE_URL or what TRUST_PROXY allows, before every request the library sees.
  provider.proxy = true;
  showAuthorizationErrorsAsPage(provider);
  provider.on('server_error', (_ctx, err) => deps.log.error({ err }, 'authorization server error'));
  // Revocation (RFC 7009) and refresh-token reuse end the whole grant inside the library; mirror that in ours.
  provider.on('grant.revoked', (_ctx, grantId: string) => {
    markGrantRevoked(db, grantId, 'revoked by the client or after a refresh token was reused').catch((err) =>
      deps.log.error({ err }, 'could not record a revoked grant'),
    );
  });
  // A registered client is "used" when an authorization starts or a token is issued; unused for 7 days, it goes.
  const touch = (ctx: KoaContextWithOIDC) => {
    const clientId = ctx.oidc.client?.clientId;
    if (clientId) touchClient(db, clientId).catch((err: unknown) => deps.log.warn({ err }, 'could not record the use of an OAuth client'));
  };
  provider.on('interaction.started', touch);
  provider.on('grant.success', touch);
  return provider;
}
