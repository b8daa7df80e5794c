import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Db } from '../db/client.ts';
import type { Principal } from '../registry/define-tool.ts';
import { isScope, type Scope } from '../registry/scopes.ts';
import type { AuthorizationServer } from './authorization-server.ts';
import { grantInForce } from './grant-admin.ts';
import { resourcesOf } from './resources.ts';

/** Resolves a Bearer access token to a principal for the service at `baseUrl`; null answers a 401. */
export type AccessTokenVerifier = { verify(token: string, baseUrl: string): Promise<Principal | null> };

/**
 * Like API keys: what was read is trusted for 0.75 s, so a revocation anywhere takes effect within 1 s with room for
 * the request that notices it (at 0.9 s a loaded 2-core machine measured 1,006 ms once).
 */
const RECHECK_MS = 750;
const LAST_USED_EVERY_MS = 60_000;
const MAX_CACHED = 10_000;
/** The library's opaque tokens: 256 random bits as 43 base64url characters. Anything else is refused unread. */
const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

type Cached<T> = { value: T; fetchedAt: number };

/** A small read-through cache whose entries are re-read after RECHECK_MS. */
class Recent<T> {
  private readonly entries = new Map<string, Cached<T>>();
  async get(key: string, now: number, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && now - hit.fetchedAt < RECHECK_MS) return hit.value;
    const value = await load();
    if (this.entries.size >= MAX_CACHED) this.entries.clear();
    this.entries.set(key, { value, fetchedAt: now });
    return value;
  }
}

type GrantState = { apiKeyId: string; keyName: string; clientLabel: string; scopes: ReadonlySet<Scope>; lastUsedAt: number } | null;

/**
 * Tokens of the built-in authorization server: opaque, looked up in the database through the library (expiry,
 * audience), then checked against their grant and the operator key behind it. The principal acts as that key, with
 * the scopes the token carries that the key and the grant still hold.
 */
export function createLocalTokenVerifier(db: Db, server: AuthorizationServer): AccessTokenVerifier {
  const tokens = new Recent<{ grantId: string; audience: string[]; scopes: string[]; exp: number } | null>();
  const grants = new Recent<GrantState>();

  const loadGrant = async (grantId: string): Promise<GrantState> => {
    const inForce = await grantInForce(db, grantId);
    if (!inForce) return null;
    const { grant, key } = inForce;
    const keyScopes = new Set(key.scopes);
    return {
      apiKeyId: key.id,
      keyName: key.name,
      clientLabel: grant.clientName ?? grant.clientId,
      scopes: new Set(grant.scopes.filter((s): s is Scope => isScope(s) && keyScopes.has(s))),
      lastUsedAt: grant.lastUsedAt?.getTime() ?? 0,
    };
  };

  return {
    async verify(token, baseUrl) {
      if (!OPAQUE_TOKEN.test(token)) return null;
      const now = Date.now();
      const provider = await server.providerFor(baseUrl);
      const found = await tokens.get(createHash('sha256').update(token).digest('base64url'), now, async () => {
        const at = await provider.AccessToken.find(token);
        if (!at?.grantId || !at.exp) return null;
        const aud = at.aud;
        return { grantId: at.grantId, audience: Array.isArray(aud) ? aud : aud ? [aud] : [], scopes: [...at.scopes], exp: at.exp * 1000 };
      });
      if (!found || found.exp <= now) return null;
      const ours = resourcesOf(baseUrl);
      if (!found.audience.some((a) => ours.includes(a))) return null;
      const grant = await grants.get(found.grantId, now, () => loadGrant(found.grantId));
      if (!grant) return null;
      if (now - grant.lastUsedAt >= LAST_USED_EVERY_MS) {
        grant.lastUsedAt = now;
        // Bookkeeping only: a failure here must never fail the request it rides on.
        db.oAuthGrant.update({ where: { id: found.grantId }, data: { lastUsedAt: new Date(now) } }).catch(() => {});
      }
      const scopes = new Set(found.scopes.filter((s): s is Scope => isScope(s) && grant.scopes.has(s)));
      return { keyId: grant.apiKeyId, name: `${grant.keyName} via ${grant.clientLabel}`, scopes, grantId: found.grantId };
    },
  };
}

/**
 * Signature algorithms accepted from an external issuer: asymmetric ones only (a symmetric HS* key would be a secret
 * shared with every resource server; `none` is no signature).
 */
const EXTERNAL_TOKEN_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/**
 * Tokens of an external authorization server (OAUTH_ISSUER): JWTs verified with its published keys (jose), issued
 * by it, for one of this service's URLs, signed with an algorithm of EXTERNAL_TOKEN_ALGORITHMS, typed as access tokens
 * (`typ: at+jwt`, RFC 9068, so an ID token or another JWT of the issuer is never taken for one) and carrying an
 * unexpired `exp` (a token without one would never expire). Scopes come from the `scope` claim (space-separated) or
 * an `scp` array; names we do not know are ignored. Revocation is the issuer's business: keep its tokens short-lived.
 */
export function createJwtTokenVerifier(issuer: string, fetchJson: (url: string) => Promise<unknown>): AccessTokenVerifier {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keySet = () =>
    (keys ??= discoverJwksUri(issuer, fetchJson).then((uri) => createRemoteJWKSet(new URL(uri)))).catch((err) => {
      keys = undefined;
      throw err;
    });
  return {
    async verify(token, baseUrl) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await keySet(), {
          issuer,
          audience: resourcesOf(baseUrl),
          algorithms: EXTERNAL_TOKEN_ALGORITHMS,
          typ: 'at+jwt',
          requiredClaims: ['exp'],
        }));
      } catch {
        return null;
      }
      if (typeof payload.sub !== 'string') return null;
      const claimed = typeof payload.scope === 'string' ? payload.scope.split(' ') : Array.isArray(payload.scp) ? payload.scp.map(String) : [];
      const subject = `oauth:${payload.sub}`;
      return { keyId: subject, name: subject, scopes: new Set(claimed.filter(isScope)) };
    },
  };
}

/** RFC 8414 first (path-suffixed well-known URL), then OpenID Connect discovery. */
async function discoverJwksUri(issuer: string, fetchJson: (url: string) => Promise<unknown>): Promise<string> {
  const { origin, pathname } = new URL(issuer);
  const path = pathname === '/' ? '' : pathname;
  for (const url of [`${origin}/.well-known/oauth-authorization-server${path}`, `${issuer}/.well-known/openid-configuration`]) {
    const metadata = await fetchJson(url).catch(() => null);
    if (metadata && typeof metadata === 'object' && 'jwks_uri' in metadata && typeof metadata.jwks_uri === 'string') {
      if ('issuer' in metadata && metadata.issuer !== issuer) throw new Error(`The metadata at ${url} names issuer ${String(metadata.issuer)}, not ${issuer}.`);
      return metadata.jwks_uri;
    }
  }
  throw new Error(`No authorization server metadata with a jwks_uri found for ${issuer}.`);
}
