import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import { addressRefusal, parseDenyList, type AddressPolicy } from './address-policy.ts';

export type SafeFetchOptions = {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The response body is read as a stream and abandoned past this many bytes. Default 2 MB. */
  maxBytes?: number;
  /** Default 2000 ms (TCP and TLS handshake). */
  connectTimeoutMs?: number;
  /** The whole call: DNS, every redirect, the full body. Default 5000 ms. */
  timeoutMs?: number;
  /** Default 3. */
  maxRedirects?: number;
  /** The URL was configured by the operator (a provider's base URL): its address is not checked. URLs a redirect leads to are checked unless same-origin. */
  trusted?: boolean;
};

export type SafeResponse = {
  status: number;
  headers: Headers;
  /** The URL that answered, after redirects. */
  url: string;
  body: Uint8Array;
  text(): string;
  /** Throws OutboundError('invalid_body') when the body is not JSON. */
  json(): unknown;
};

export type SafeFetch = (url: string, options?: SafeFetchOptions) => Promise<SafeResponse>;

/** Resolves a host name to every address it has (tests substitute one to point a name at a chosen address). */
export type Resolver = (hostname: string) => Promise<readonly string[]>;

export type OutboundErrorKind =
  | 'invalid_url'
  | 'refused_scheme'
  | 'refused_address'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'invalid_body'
  | 'network';

/** Every failure of the safe client. Messages name the host at most, never a path, query or body. */
export class OutboundError extends Error {
  readonly kind: OutboundErrorKind;

  constructor(kind: OutboundErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
    this.kind = kind;
  }
}

export type SafeFetchConfig = {
  /** Lifts the address rules and allows plain http: local tests and development only. */
  allowPrivate: boolean;
  /** Addresses or CIDR blocks never connected to, even with allowPrivate. */
  denyList?: readonly string[];
  userAgent: string;
  resolve?: Resolver;
};

const DEFAULTS = { maxBytes: 2 * 1024 * 1024, connectTimeoutMs: 2000, timeoutMs: 5000, maxRedirects: 3 } as const;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that carry a caller's identity; never sent to another origin than the one they were meant for. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

const systemResolve: Resolver = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The one way the service calls a URL it did not choose itself. Each hop: scheme check → DNS → every resolved
 * address checked → connection pinned to the checked address (so a second DNS answer cannot rebind it) → response
 * read as a capped stream. There is no cookie jar, and credentials are dropped when a redirect changes origin.
 * Connections are kept alive per origin and checked address (see `pinnedAgents`): a later call reuses one only
 * when its own check arrived at the same address.
 */
export function createSafeFetch(config: SafeFetchConfig): SafeFetch {
  const policy: AddressPolicy = Object.freeze({ allowPrivate: config.allowPrivate, denyList: parseDenyList(config.denyList ?? []) });
  const resolve = config.resolve ?? systemResolve;
  const agents = pinnedAgents();

  return async (url, options = {}) => {
    const limits = { ...DEFAULTS, ...definedOnly(options) };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), limits.timeoutMs);
    try {
      let target = parseUrl(url);
      let method = options.method ?? 'GET';
      let body = options.body;
      let headers: Record<string, string> = { ...dropHeaders(options.headers ?? {}, (name) => name === 'user-agent'), 'user-agent': config.userAgent };
      let trusted = options.trusted ?? false;
      for (let redirects = 0; ; redirects++) {
        const hop = { target, method, headers, body, trusted, limits, signal: deadline.signal };
        const answer = await exchange(hop, policy, resolve, agents);
        if (!('location' in answer)) return answer;
        if (redirects >= limits.maxRedirects) {
          throw new OutboundError('too_many_redirects', `${target.host} redirected more than ${limits.maxRedirects} times`);
        }
        const next = parseUrl(answer.location, target);
        if (next.origin !== target.origin) {
          headers = dropHeaders(headers, (name) => CREDENTIAL_HEADERS.has(name));
          trusted = false;
        }
        // Browsers' rule (fetch §4.4): 303 always, and 301/302 after a POST, continue as a GET without a body.
        if (answer.status === 303 || (method === 'POST' && answer.status !== 307 && answer.status !== 308)) {
          method = 'GET';
          body = undefined;
          headers = dropHeaders(headers, (name) => name.startsWith('content-'));
        }
        target = next;
      }
    } catch (err) {
      throw asOutboundError(err, deadline.signal, limits.timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  };
}

type Limits = { maxBytes: number; connectTimeoutMs: number; timeoutMs: number; maxRedirects: number };
type Hop = {
  target: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  trusted: boolean;
  limits: Limits;
  signal: AbortSignal;
};
type Redirect = { status: number; location: string };

async function exchange(hop: Hop, policy: AddressPolicy, resolve: Resolver, agents: PinnedAgents): Promise<SafeResponse | Redirect> {
  const { target, limits, signal } = hop;
  if (target.protocol !== 'https:' && !(policy.allowPrivate && target.protocol === 'http:')) {
    throw new OutboundError('refused_scheme', `only https URLs may be fetched (got ${target.protocol})`);
  }
  const address = await checkedAddress(target, hop.trusted, policy, resolve, signal);
  const dispatcher = agents.get(target.origin, address, limits.connectTimeoutMs);
  const timeouts = { headersTimeout: limits.timeoutMs, bodyTimeout: limits.timeoutMs };
  // A body left unread (a redirect, past the cap, a timeout) is destroyed: undici then does not reuse its connection.
  const res = await request(target, { dispatcher, method: hop.method, headers: hop.headers, body: hop.body, signal, ...timeouts });
  const location = REDIRECTS.has(res.statusCode) ? headerValue(res.headers.location) : undefined;
  if (location !== undefined) {
    discard(res.body);
    return { status: res.statusCode, location };
  }
  const bytes = await readCapped(res.body, headerValue(res.headers['content-length']), limits.maxBytes, target.host);
  return safeResponse(res.statusCode, toHeaders(res.headers), target.href, bytes);
}

type PinnedAgents = { get: (origin: string, address: string, connectTimeoutMs: number) => Dispatcher };

/** Origins × addresses kept with open connections; the least recently used beyond this are closed. */
const KEPT_AGENTS = 64;

/**
 * Keep-alive connections, one agent per origin, checked address and connect timeout. Every call still resolves and
 * checks the host first; it then only reuses a connection opened to the address that check arrived at, so a DNS
 * answer that moves the host elsewhere gets a new connection to the new (checked) address, never the old socket.
 * Without reuse each call paid a TCP (and TLS) handshake, which capped webhook delivery far below its target.
 */
function pinnedAgents(): PinnedAgents {
  const agents = new Map<string, Agent>();
  return {
    get(origin, address, connectTimeoutMs) {
      const key = `${origin} ${address} ${connectTimeoutMs}`;
      let agent = agents.get(key);
      if (agent) agents.delete(key);
      else agent = new Agent({ connect: { timeout: connectTimeoutMs, lookup: pinnedLookup(address) } });
      agents.set(key, agent); // Map order is insertion order: the most recently used goes last.
      for (const [oldest, old] of agents) {
        if (agents.size <= KEPT_AGENTS) break;
        agents.delete(oldest);
        // Requests still running on it finish first; nobody waits for the close.
        old.close().catch(() => {});
      }
      return agent;
    },
  };
}

/** Resolves the host once and checks every address it has; the connection then goes to the first of them only. */
async function checkedAddress(target: URL, trusted: boolean, policy: AddressPolicy, resolve: Resolver, signal: AbortSignal): Promise<string> {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) ? [host] : await untilAborted(resolve(host), signal);
  if (addresses.length === 0) throw new OutboundError('network', `${target.hostname} has no address`);
  if (!trusted) {
    for (const address of addresses) {
      const refusal = addressRefusal(address, policy);
      if (refusal) throw new OutboundError('refused_address', `${target.hostname} resolves to ${refusal}`);
    }
  }
  return addresses[0];
}

/** A DNS lookup for the socket that can only answer the address already checked. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

async function readCapped(stream: Readable, contentLength: string | undefined, maxBytes: number, host: string): Promise<Uint8Array> {
  const tooLarge = () => new OutboundError('too_large', `${host} answered with more than ${maxBytes} bytes`);
  if (contentLength !== undefined && Number(contentLength) > maxBytes) {
    discard(stream);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes: Buffer = chunk;
    total += bytes.length;
    // Leaving the loop destroys the stream (and the Agent is destroyed after), so the rest is never read.
    if (total > maxBytes) throw tooLarge();
    chunks.push(bytes);
  }
  return new Uint8Array(Buffer.concat(chunks, total));
}

/** Destroying an undici body emits an abort error; nobody waits for this one. */
function discard(stream: Readable): void {
  stream.on('error', () => {}).destroy();
}

function safeResponse(status: number, headers: Headers, url: string, body: Uint8Array): SafeResponse {
  const text = () => new TextDecoder().decode(body);
  return {
    status,
    headers,
    url,
    body,
    text,
    json: () => {
      try {
        const value: unknown = JSON.parse(text());
        return value;
      } catch (err) {
        throw new OutboundError('invalid_body', `${new URL(url).host} answered with a body that is not JSON`, { cause: err });
      }
    },
  };
}

function parseUrl(url: string, base?: URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch (err) {
    throw new OutboundError('invalid_url', 'not a valid absolute URL', { cause: err });
  }
  // Credentials in a URL would be sent as Authorization to whatever host it names.
  if (parsed.username || parsed.password) throw new OutboundError('invalid_url', 'URLs with credentials are not fetched');
  return parsed;
}

function dropHeaders(headers: Record<string, string>, drop: (lowerCaseName: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop(name.toLowerCase())));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  return headers;
}

function definedOnly(options: SafeFetchOptions): Partial<Limits> {
  const { maxBytes, connectTimeoutMs, timeoutMs, maxRedirects } = options;
  return Object.fromEntries(Object.entries({ maxBytes, connectTimeoutMs, timeoutMs, maxRedirects }).filter(([, v]) => v !== undefined));
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function asOutboundError(err: unknown, deadline: AbortSignal, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  const code = (err as { code?: unknown })?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new OutboundError('timeout', 'the connection was not established in time', { cause: err });
  if (deadline.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return new OutboundError('timeout', `no complete answer within ${timeoutMs} ms`, { cause: err });
  }
  return new OutboundError('network', `the request failed (${typeof code === 'string' ? code : 'network error'})`, { cause: err });
}
