import net from 'node:net';
import { z } from 'zod';

/**
 * Which peers may name the client in X-Forwarded-For: none (false, the socket address is the client), the nearest
 * N hops, or the listed proxy addresses and CIDR ranges. Only a trusted peer's header changes `request.ip`, so a
 * client that forges the header gains nothing.
 */
export type TrustProxy = false | number | string[];

/**
 * Fastify's `trustProxy` for a setting. A hop count becomes a function of the hop index: Fastify treats a bare number
 * as "trust nobody" because it cannot vouch for the nearest peer; with TRUST_PROXY=N the operator does, by letting
 * only the proxies reach the service (docs/deploy.md).
 */
export function fastifyTrustProxy(setting: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

/** Range names proxy-addr (under Fastify's trustProxy) understands besides addresses and CIDRs. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** TRUST_PROXY: `false` (or 0), a hop count, or a comma-separated list of addresses and ranges. */
export const trustProxySetting = z
  .string()
  .trim()
  .transform((value, ctx): TrustProxy => {
    if (value === 'false' || /^0+$/.test(value)) return false;
    if (/^\d{1,3}$/.test(value)) return Number(value);
    const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
    if (entries.length > 0 && entries.every(isAddressOrRange)) return entries;
    ctx.addIssue({ code: 'custom', message: 'not a hop count or a list of addresses and CIDR ranges' });
    return z.NEVER;
  });
