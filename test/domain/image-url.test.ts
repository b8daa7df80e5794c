// checkImageUrl: only public https URLs without credentials may be attached.
import { describe, expect, it } from 'vitest';
import { checkImageUrl } from '../../src/domain/image-url.ts';

describe('checkImageUrl', () => {
  it.each([
    ['https://cdn.example.com/a.jpg', 'https://cdn.example.com/a.jpg'],
    ['https://CDN.Example.COM/Path/A.JPG?w=200#x', 'https://cdn.example.com/Path/A.JPG?w=200#x'],
    ['https://cdn.example.com:8443/a.jpg', 'https://cdn.example.com:8443/a.jpg'],
    ['https://images.unsplash.com/photo-1?auto=format', 'https://images.unsplash.com/photo-1?auto=format'],
    ['https://xn--bl-zia.example.com/a.jpg', 'https://xn--bl-zia.example.com/a.jpg'],
    ['https://blå.example.com/a.jpg', 'https://xn--bl-zia.example.com/a.jpg'],
    ['https://cdn.example.com./a.jpg', 'https://cdn.example.com./a.jpg'],
  ])('accepts %s (normalised to %s)', (raw, url) => {
    expect(checkImageUrl(raw)).toEqual({ ok: true, url });
  });

  it.each([
    ['http://cdn.example.com/a.jpg', 'https'],
    ['ftp://cdn.example.com/a.jpg', 'https'],
    ['file:///etc/passwd', 'https'],
    ['data:image/png;base64,AAAA', 'https'],
    ['javascript:alert(1)', 'https'],
    ['not a url', 'valid URL'],
    ['', 'valid URL'],
    ['//cdn.example.com/a.jpg', 'valid URL'],
    ['https://user:pass@cdn.example.com/a.jpg', 'credentials'],
    ['https://user@cdn.example.com/a.jpg', 'credentials'],
    ['https://127.0.0.1/a.jpg', 'IP address'],
    ['https://10.0.0.1/a.jpg', 'IP address'],
    ['https://169.254.169.254/latest/meta-data/', 'IP address'],
    ['https://[::1]/a.jpg', 'IP address'],
    ['https://[fd00::1]/a.jpg', 'IP address'],
    ['https://[::ffff:127.0.0.1]/a.jpg', 'IP address'],
    ['https://0x7f000001/a.jpg', 'IP address'],
    ['https://2130706433/a.jpg', 'IP address'],
    ['https://017700000001/a.jpg', 'IP address'],
    ['https://127.1/a.jpg', 'IP address'],
    ['https://localhost/a.jpg', 'public host'],
    ['https://LOCALHOST./a.jpg', 'public host'],
    ['https://localhost../a.jpg', 'public host'],
    ['https://printer.local./a.jpg', 'public host'],
    ['https://127.0.0.1./a.jpg', 'IP address'],
    ['https://./a.jpg', 'public host'],
    ['https://api.localhost/a.jpg', 'public host'],
    ['https://printer.local/a.jpg', 'public host'],
    ['https://db.internal/a.jpg', 'public host'],
    ['https://router.home.arpa/a.jpg', 'public host'],
    ['https://intranet/a.jpg', 'public host'],
  ])('refuses %s (%s)', (raw, reason) => {
    const result = checkImageUrl(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});
