/**
 * The site path of an image that ships with the service (assets/images/, served at a path with a hash of its bytes):
 * the demo's pictures. Layouts may name one as they name an https URL.
 */
export const BUNDLED_IMAGE_PATH = /^\/assets\/images\/[a-z0-9-]+\.[0-9a-f]{12}\.svg$/;

/**
 * Whether an image URL may be attached to a product. The service never fetches it, but
 * storefronts and agents will, so only public https URLs without credentials are accepted: no IP literals (that
 * covers 127.0.0.1, 169.254.169.254, [::1] and numeric forms such as 0x7f000001, which WHATWG URL parsing turns
 * into dotted IPv4), and no local-only host names.
 */
export function checkImageUrl(raw: string): { ok: true; url: string } | { ok: false; reason: string } {
  if (BUNDLED_IMAGE_PATH.test(raw)) return { ok: true, url: raw };
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
