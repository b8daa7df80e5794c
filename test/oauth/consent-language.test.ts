// The consent page speaks the shop's language (settings.language; docs/oauth.md): its words come from that
// language's catalogue (src/i18n/), the same one the storefront and the e-mails use, and `<html lang>` and
// Content-Language name the language the text is in. Over real HTTP, in Danish (the default) and English, with a
// refused form answered in the same language; a language without a catalogue gets English and says so.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { authorizationRequest, openConsentPage, registerClient, submitConsent, type ConsentPage } from './mcp-host.ts';

let t: TestApp;
let base: string;
let clientId: string;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  clientId = await registerClient(base, 'Helpful Agent');
  key = await t.key();
});
afterAll(async () => t?.close());

async function consentPageIn(language: string | null) {
  if (language) expect((await t.call('settings.update', { language, shopName: 'Brille & Co' }, key)).statusCode).toBe(200);
  const { url } = authorizationRequest(base, { client_id: clientId, scope: 'catalog:read products:write', resource: `${base}/api/mcp` });
  const page = await openConsentPage(url);
  expect(page.status).toBe(200);
  const res = await fetch(page.url, { headers: { cookie: page.jar.header() } });
  return { page, contentLanguage: res.headers.get('content-language') };
}

/** The page again after an approval with an invalid key: the refusal, in the page's language. */
async function refusedKey(page: ConsentPage) {
  const refused = await submitConsent(page, { decision: 'approve', operator_key: 'aak_nope', scope: 'catalog:read' });
  if ('redirect' in refused) throw new Error('approved with an invalid key');
  expect(refused.status).toBe(401);
  return refused.html;
}

describe('the consent page in the shop’s language', () => {
  it('is Danish by default: lang, Content-Language, heading, scopes in words, buttons, and a refusal', async () => {
    const { page, contentLanguage } = await consentPageIn(null);
    expect(contentLanguage).toBe('da');
    expect(page.html).toContain('<html lang="da">');
    expect(page.html).toContain('<h1>Vil du give <strong>127.0.0.1:9</strong> adgang til Agent Shop?</h1>');
    expect(page.html).toContain('Oprette, ændre og slette produkter med priser, lager og billeder <code>products:write</code>');
    expect(page.html).toContain('>Godkend</button>');
    expect(page.html).not.toContain('Approve');
    const refused = await refusedKey(page);
    expect(refused).toContain('<html lang="da">');
    expect(refused).toContain('API-nøglen er ikke gyldig.');
  });

  it('is English when the shop’s language is en-GB, and names the shop from settings', async () => {
    const { page, contentLanguage } = await consentPageIn('en-GB');
    expect(contentLanguage).toBe('en-GB');
    expect(page.html).toContain('<html lang="en-GB">');
    expect(page.html).toContain('<h1>Allow <strong>127.0.0.1:9</strong> to use Brille &#38; Co?</h1>');
    expect(page.html).toContain('Create, change and delete products, with prices, stock and images <code>products:write</code>');
    expect(page.html).toContain('>Approve</button>');
    expect(await refusedKey(page)).toContain('That API key is not valid.');
  });

  it('is English, and says en, for a language without a catalogue', async () => {
    const { page, contentLanguage } = await consentPageIn('fr');
    expect(contentLanguage).toBe('en');
    expect(page.html).toContain('<html lang="en">');
    expect(page.html).toContain('>Approve</button>');
  });
});
