// Who is calling over UCP (docs/agentic-checkout.md, "Platforms"): the UCP-Agent header (or the MCP binding's
// meta["ucp-agent"]) names the platform's profile URL; the profile says which protocol version it speaks and where
// its order webhook is. Profiles are fetched with the safe outbound client and cached for a few minutes.
import type { Config } from '../../config.ts';
import { checkEndpointUrl, resolverFor } from '../../events/endpoint-url.ts';
import { AppError } from '../../errors.ts';
import { OutboundError } from '../../outbound/safe-fetch.ts';
import { serviceSafeFetch } from '../../outbound/service-client.ts';
import { UCP_VERSION } from './wire.ts';

/** What a session keeps of its platform. */
export type PlatformFacts = { profile: string; version: string; webhookUrl: string | null };

const CACHE_MS = 5 * 60_000;
const MAX_CACHED = 1000;
const cache = new Map<string, { at: number; facts: Promise<PlatformFacts> }>();

/**
 * The profile URL of a UCP-Agent header: an RFC 8941 dictionary whose `profile` member is a string
 * (`profile="https://…"`). 400 invalid_request when the header is missing or names no absolute http(s) URL.
 */
export function profileOfHeader(value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? value.join(',') : value;
  const match = raw === undefined ? null : /(?:^|[,;\s])profile\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(raw);
  if (!match) throw new AppError('invalid_request', 'UCP-Agent: send the platform profile as profile="https://…" (an RFC 8941 dictionary).');
  return checkProfileUrl(match[1].replace(/\\(.)/g, '$1'));
}

export function checkProfileUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('invalid_request', 'UCP-Agent: the profile is not an absolute URL.');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new AppError('invalid_request', 'UCP-Agent: the profile must be an http(s) URL.');
  return parsed.href;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The order capability's webhook_url: capabilities keyed by name (2026-04-08) or listed with names (earlier). */
function webhookOf(ucp: Json): string | null {
  const caps = ucp.capabilities;
  const entries: unknown[] = isObject(caps) ? (Array.isArray(caps['dev.ucp.shopping.order']) ? caps['dev.ucp.shopping.order'] : [])
    : Array.isArray(caps) ? caps.filter((c) => isObject(c) && c.name === 'dev.ucp.shopping.order') : [];
  for (const entry of entries) {
    const url = isObject(entry) && isObject(entry.config) ? entry.config.webhook_url : undefined;
    if (typeof url === 'string') return url;
  }
  return null;
}

async function fetchFacts(config: Config, profile: string): Promise<PlatformFacts> {
  try {
    const res = await serviceSafeFetch(config, resolverFor(config))(profile, { timeoutMs: 3000, maxBytes: 256 * 1024, maxRedirects: 2 });
    const body = res.status === 200 ? res.json() : null;
    const ucp = isObject(body) && isObject(body.ucp) ? body.ucp : null;
    if (!ucp) return { profile, version: UCP_VERSION, webhookUrl: null };
    const version = typeof ucp.version === 'string' ? ucp.version : UCP_VERSION;
    const hook = webhookOf(ucp);
    const webhookUrl = hook === null ? null : await checkEndpointUrl(config, hook).catch(() => null);
    return { profile, version, webhookUrl };
  } catch (err) {
    // An unreachable profile leaves the platform without webhooks; the checkout itself goes on.
    if (err instanceof OutboundError || err instanceof AppError) return { profile, version: UCP_VERSION, webhookUrl: null };
    throw err;
  }
}

/**
 * The platform behind a profile URL, fetched at most every few minutes per URL. A platform whose profile declares a
 * newer protocol version than this service's is refused (422 unsupported_version): versions are dates, and a
 * business answers in its own version when the platform's is the same or newer-compatible only by declaration.
 */
export async function platformOf(config: Config, profile: string, now = Date.now()): Promise<PlatformFacts> {
  let entry = cache.get(profile);
  if (!entry || now - entry.at > CACHE_MS) {
    if (cache.size >= MAX_CACHED) cache.clear();
    entry = { at: now, facts: fetchFacts(config, profile) };
    cache.set(profile, entry);
  }
  const facts = await entry.facts;
  if (facts.version > UCP_VERSION) {
    throw new AppError('unsupported_version', `The platform speaks UCP ${facts.version}; this service speaks ${UCP_VERSION}.`);
  }
  return facts;
}
