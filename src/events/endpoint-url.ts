import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { addressRefusal, parseDenyList } from '../outbound/address-policy.ts';
import type { Resolver } from '../outbound/safe-fetch.ts';

const systemResolve: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Per app (keyed by its config): the resolver tests substitute to point host names at chosen addresses. */
const resolvers = new WeakMap<Config, Resolver>();

export function useResolver(config: Config, resolve: Resolver): void {
  resolvers.set(config, resolve);
}

export const resolverFor = (config: Config): Resolver => resolvers.get(config) ?? systemResolve;

/**
 * The safe outbound client's rules applied to an endpoint URL when it is created or changed: https (plain http only
 * where OUTBOUND_ALLOW_PRIVATE lifts the rules), no credentials, and a host that resolves now, to public addresses
 * only. Every delivery goes through the safe client, which checks the address again and pins the connection to it.
 */
export async function checkEndpointUrl(config: Config, url: string): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refused('not a valid absolute URL');
  }
  const schemes = config.outbound.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) throw refused(`the scheme must be ${schemes.join(' or ')}`);
  if (parsed.username || parsed.password) throw refused('URLs with credentials are not accepted');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: readonly string[];
  try {
    addresses = isIP(host) ? [host] : await resolverFor(config)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw refused(`${parsed.hostname} does not resolve`);
  const policy = { allowPrivate: config.outbound.allowPrivate, denyList: parseDenyList(config.outbound.denyList) };
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) throw refused(`${parsed.hostname} resolves to ${refusal}`);
  }
  return parsed.href;
}

const refused = (why: string) => new AppError('invalid_webhook_url', `The endpoint URL was refused: ${why}.`);
