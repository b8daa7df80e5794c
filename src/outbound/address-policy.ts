import ipaddr from 'ipaddr.js';

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Which addresses an outbound request may connect to. */
export type AddressPolicy = Readonly<{ allowPrivate: boolean; denyList: readonly Network[] }>;

/** Parses deny-list entries (an address or a CIDR block each); throws on the first one that is neither. */
export function parseDenyList(entries: readonly string[]): Network[] {
  return entries.map((entry) => {
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`"${entry}" is not a CIDR block`);
      return ipaddr.parseCIDR(entry);
    }
    if (!ipaddr.isValid(entry)) throw new Error(`"${entry}" is not an IP address`);
    const ip = ipaddr.parse(entry);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  });
}

/**
 * Why the service must not connect to `address`, or null when it may. Only ordinary public unicast passes:
 * ipaddr.js names every special-purpose range (loopback, private, link-local with the cloud metadata address,
 * CGNAT, unique-local, IPv4-mapped and translated IPv6, multicast, unspecified, reserved …), and anything named
 * is refused rather than listed here one by one, so a range we did not think of fails closed.
 */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // The deny list is compared with the embedded IPv4 address too, so ::ffff:10.0.0.1 cannot slip past 10.0.0.0/8.
  const candidates = [ipaddr.parse(address), ipaddr.process(address)];
  const denied = policy.denyList.some(([net, bits]) => candidates.some((ip) => ip.kind() === net.kind() && ip.match(net, bits)));
  if (denied) return 'in the configured deny list';
  if (policy.allowPrivate) return null;
  const range = candidates[0].range();
  return range === 'unicast' ? null : `a ${range} address`;
}
