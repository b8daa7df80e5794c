import { isBundledImagePath } from '../assets/images.ts';

/**
 * Whether an image URL may be attached to a product or named by a layout. The site path of an image that ships with
 * the service (/assets/images/<name>.<hash>.svg, the demo's pictures) is accepted as it is, but only one the service
 * really serves (any other path, or an older hash, would be a broken image). Otherwise the service never fetches it, but
 * storefronts and agents will, so only public https URLs without credentials are accepted: no IP literals (that
 * covers 127.0.0.1, 169.254.169.254, [::1] and numeric forms such as 0x7f000001, which WHATWG URL parsing turns
 * into dotted IPv4), and no local-only host names.
 */
export function checkImageUrl(raw: string): { ok: true; url: string } | { ok: false; reason: string } {
  if (isBundledImagePath(raw)) return { ok: true, url: raw };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'must use https' };
  if (url.username || url.password) return { ok: false, reason: 'must not contain credentials' };
  // A trailing dot is the same host in DNS ("localhost." is localhost), so it must not dodge the checks below.
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (host.startsWith('[') || /^[\d.]+$/.test(host)) return { ok: false, reason: 'must name a host, not an IP address' };
  if (!host.includes('.') || /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/.test(host)) {
    return { ok: false, reason: 'must be a public host name' };
  }
  return { ok: true, url: url.href };
}
