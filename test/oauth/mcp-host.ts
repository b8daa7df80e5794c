// A minimal MCP host for the OAuth tests: the SDK's OAuthClientProvider interface kept in memory, plus the
// operator's side of the consent form (driven through its documented form contract, as automation would).
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

export const CALLBACK_URL = 'http://127.0.0.1:9/callback';

export class TestHost implements OAuthClientProvider {
  clientMetadataUrl?: string;
  authorizationUrl?: URL;
  private info?: StoredOAuthClientInformation;
  private stored?: StoredOAuthTokens;
  private verifier = '';
  private discovery?: OAuthDiscoveryState;

  constructor(private readonly metadata: OAuthClientMetadata, clientMetadataUrl?: string) {
    this.clientMetadataUrl = clientMetadataUrl;
  }
  get redirectUrl() {
    return CALLBACK_URL;
  }
  get clientMetadata() {
    return this.metadata;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

export function hostMetadata(name: string): OAuthClientMetadata {
  return {
    client_name: name,
    redirect_uris: [CALLBACK_URL],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** A browser's cookie handling, just enough for one origin. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export type ConsentPage = { url: string; html: string; csrf: string; jar: CookieJar; status: number };

/** Follows /oauth/authorize's redirects to the consent page, as a browser would. */
export async function openConsentPage(authorizationUrl: URL | string): Promise<ConsentPage> {
  const jar = new CookieJar();
  let url = String(authorizationUrl);
  for (let hops = 0; hops < 5; hops++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(res);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      continue;
    }
    const html = await res.text();
    return { url, html, csrf: /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '', jar, status: res.status };
  }
  throw new Error('too many redirects before the consent page');
}

/**
 * Submits the consent form; on success follows the authorization server's redirects up to the client's redirect
 * URI and returns it (with code or error, and iss). On a refused form returns the re-rendered page instead.
 */
export async function submitConsent(
  page: ConsentPage,
  form: { operator_key?: string; scope?: string; decision: 'approve' | 'deny'; csrf_token?: string },
): Promise<{ redirect: URL } | { status: number; html: string }> {
  const body = new URLSearchParams({ csrf_token: page.csrf, ...form });
  let res = await fetch(page.url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.jar.header() },
    body,
  });
  let url = page.url;
  for (let hops = 0; hops < 5; hops++) {
    page.jar.store(res);
    if (res.status < 300 || res.status >= 400) return { status: res.status, html: await res.text() };
    url = new URL(res.headers.get('location')!, url).href;
    if (url.startsWith(CALLBACK_URL)) return { redirect: new URL(url) };
    res = await fetch(url, { redirect: 'manual', headers: { cookie: page.jar.header() } });
  }
  throw new Error('too many redirects after the consent form');
}

/** Approves on the operator's behalf and returns the redirect URI's query (code, iss, state). */
export async function approve(authorizationUrl: URL | string, operatorKey: string, scope: string): Promise<URLSearchParams> {
  const out = await submitConsent(await openConsentPage(authorizationUrl), { operator_key: operatorKey, scope, decision: 'approve' });
  if (!('redirect' in out)) throw new Error(`consent refused (${out.status}): ${out.html}`);
  return out.redirect.searchParams;
}

/** An https server on 127.0.0.1 with a throwaway self-signed certificate; `caFile` is what a client must trust. */
export async function startHttpsServer(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; origin: string; caFile: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'oauth-test-tls-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile: cert };
}

/** Registers a public client (RFC 7591) that redirects to `redirectUri`; returns its client_id. */
export async function registerClient(base: string, name = 'Test Client', redirectUri = CALLBACK_URL, extra: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ...extra,
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** An authorization request with PKCE (S256) for `resource`; returns the URL and the verifier. */
export function authorizationRequest(base: string, params: Record<string, string | undefined>) {
  const verifier = randomBytes(32).toString('base64url');
  const query = {
    response_type: 'code',
    redirect_uri: CALLBACK_URL,
    state: 'st4te',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...params,
  };
  const url = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
  return { url, verifier };
}

export type TokenResponse = { access_token: string; refresh_token: string; scope: string; token_type: string; expires_in: number };

/** The whole flow by hand: authorization request, operator approval of `scope`, code exchange for `resource`. */
export async function obtainTokens(base: string, opts: { clientId: string; operatorKey: string; resource: string; scope: string }): Promise<TokenResponse> {
  const { url, verifier } = authorizationRequest(base, { client_id: opts.clientId, resource: opts.resource, scope: opts.scope });
  const callback = await approve(url, opts.operatorKey, opts.scope);
  // RFC 9207: the authorization response names its issuer.
  if (callback.get('iss') !== `${base}/oauth`) throw new Error(`authorization response from issuer ${callback.get('iss')}`);
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code: callback.get('code')!, redirect_uri: CALLBACK_URL, client_id: opts.clientId, code_verifier: verifier, resource: opts.resource,
    }),
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as TokenResponse;
}
