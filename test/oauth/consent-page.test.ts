// What the consent page says about who asks (src/oauth/consent-page.ts, describeClient): a client metadata
// document's host vouches for nothing about redirect URIs on other hosts, so the page names the redirect host first
// and warns when they differ. Registered clients are covered over HTTP in authorization-server.test.ts.
import { describe, expect, it } from 'vitest';
import { describeClient, renderConsentPage } from '../../src/oauth/consent-page.ts';

const page = (clientId: string, redirectUri: string, redirectUris: string[] = [redirectUri]) =>
  renderConsentPage({
    action: '/oauth/interaction/x', csrfToken: 't', clientName: 'Helpful Agent', shopName: 'Brille & Co', language: 'en', redirectUri, resource: 'https://shop.example/api/mcp', scopes: [],
    ...describeClient({ clientId, clientName: 'Helpful Agent', clientUri: null, redirectUri, redirectUris }),
  });

describe('the consent page for a client metadata document', () => {
  it('warns when the redirect URI is on another host than the client_id URL, and does not name the client_id host first', () => {
    const html = page('https://app.example/client.json', 'https://evil.example/cb');
    expect(html).toContain('<strong>This app will send you back to evil.example, not to app.example.</strong>');
    expect(html).toContain('<h1>Allow <strong>evil.example</strong> to use Brille &#38; Co?</h1>');
    expect(html).not.toContain('<strong>app.example</strong>');
    expect(html).toContain('identified by its client metadata document on app.example');
  });

  it('warns about any registered redirect URI elsewhere, even when this request uses one on the same host', () => {
    const html = page('https://app.example/client.json', 'https://app.example/cb', ['https://app.example/cb', 'https://evil.example/cb', 'com.example.app:/cb']);
    expect(html).toContain('This app will send you back to evil.example or com.example.app:, not to app.example.');
    expect(html).toContain('<h1>Allow <strong>app.example</strong> to use Brille &#38; Co?</h1>');
  });

  it('says nothing more when every redirect URI is on the client_id host (any port)', () => {
    const html = page('https://app.example/client.json', 'https://app.example:8443/cb');
    expect(html).not.toContain('class="warning"');
    expect(html).toContain('<h1>Allow <strong>app.example:8443</strong> to use Brille &#38; Co?</h1>');
  });

  it('takes a registered client’s name as the host it claims only when the name is a host name', () => {
    const claimed = (clientName: string) => describeClient({ clientId: 'abc', clientName, clientUri: null, redirectUri: 'https://r.example/cb', redirectUris: [] }).claimedHost;
    expect(claimed('app.example')).toBe('app.example');
    expect(claimed('Helpful Agent')).toBeNull();
    expect(claimed('<b>app.example</b>')).toBeNull();
  });
});
