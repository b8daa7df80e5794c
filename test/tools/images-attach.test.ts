// From images.search_stock to products.attach_image: the search result's sourceId and url are accepted, the audit
// entry records where the photo comes from and under which licence, and Unsplash hears that its photo is used.
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkImageUrl } from '../../src/domain/image-url.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';
import { sendJson, startLocalServer, type LocalServer, type RecordedRequest } from '../outbound/local-server.ts';

type Fixture = { source: string; response: Record<string, unknown> };
const fixture = (name: string): Fixture => JSON.parse(readFileSync(new URL(`./images-fixtures/${name}.json`, import.meta.url), 'utf8'));
const UNSPLASH_KEY = 'unsplash-attach-key-5d1e';

let provider: LocalServer;
let respond: (req: RecordedRequest, res: ServerResponse) => void;
let t: TestApp;
let key: string;

/** The documentation's Unsplash result, as the live API returns it: with alt_description and a download_location. */
function unsplashResults(downloadLocation: string) {
  const response = structuredClone(fixture('unsplash-search').response) as { results: Array<Record<string, unknown> & { links: Record<string, string> }> };
  const [photo] = response.results;
  photo.alt_description = 'man drinking coffee';
  photo.links.download_location = downloadLocation;
  return response;
}

beforeAll(async () => {
  provider = await startLocalServer((req, res) => respond(req, res));
  t = await createTestApp({
    env: { OUTBOUND_ALLOW_PRIVATE: '1', IMAGES_PROVIDER: 'unsplash', UNSPLASH_API_URL: `${provider.origin}/unsplash`, UNSPLASH_ACCESS_KEY: UNSPLASH_KEY },
  });
  key = await t.key(['marketing:write', 'products:write', 'catalog:read']);
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

const call = (name: string, body: unknown) => t.call(name, body, key);
let n = 0;
async function product(): Promise<string> {
  const slug = `stock-photo-${++n}-${Date.now()}`;
  const res = await call('products.create', { name: 'Mug', slug, description: 'A stoneware mug.', priceDkk: 9_900, stock: 1 });
  expect(res.statusCode, res.body).toBe(200);
  return slug;
}
async function searchOne(query: string): Promise<{ sourceId: string; url: string; alt: string | null }> {
  const res = await call('images.search_stock', { query });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result.items[0];
}
const downloads = () => provider.requests.filter((r) => r.path.endsWith('/download'));
/** The download report is sent after the attach has committed, without holding up its answer. */
async function nextDownload(count: number): Promise<RecordedRequest> {
  for (let i = 0; i < 100 && downloads().length < count; i++) await new Promise((r) => setTimeout(r, 20));
  expect(downloads()).toHaveLength(count);
  return downloads()[count - 1];
}
async function attachEntries(slug: string) {
  const { id } = (await t.db.product.findUnique({ where: { slug } }))!;
  return t.db.auditEntry.findMany({ where: { tool: 'products.attach_image', entityId: id } });
}

describe('attaching an Unsplash search result', () => {
  it('records provider, licence, author and attribution, and requests the photo’s download_location with the key', async () => {
    respond = (req, res) =>
      req.path.endsWith('/download') ? sendJson(res, 200, { url: 'https://images.unsplash.com/photo-1416339306562-f3d12fefd36f' }) : sendJson(res, 200, unsplashResults(`${provider.origin}/unsplash/photos/eOLpJytrbsQ/download?ixid=tracking-1`));
    const slug = await product();
    const found = await searchOne('coffee to attach');
    const before = downloads().length;

    const res = await call('products.attach_image', { slug, imageUrl: found.url, sourceId: found.sourceId, alt: found.alt });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toEqual({ ok: true, slug, attached: found.url, totalImages: 1 });

    const [entry] = await attachEntries(slug);
    expect(entry.meta).toEqual({
      imageUrl: found.url,
      alt: 'man drinking coffee',
      sourceId: 'unsplash:eOLpJytrbsQ',
      provider: 'unsplash',
      license: 'Unsplash License',
      licenseUrl: 'https://unsplash.com/license',
      authorName: 'Jeff Sheldon',
      authorUrl: 'http://unsplash.com/@ugmonk',
      attribution: 'Photo by Jeff Sheldon on Unsplash',
      pageUrl: 'http://unsplash.com/photos/eOLpJytrbsQ',
    });

    const download = await nextDownload(before + 1);
    expect(download.method).toBe('GET');
    expect(download.path).toBe('/unsplash/photos/eOLpJytrbsQ/download');
    expect(Object.fromEntries(download.query)).toEqual({ ixid: 'tracking-1' });
    expect(download.headers.authorization).toBe(`Client-ID ${UNSPLASH_KEY}`);
  });

  it('a dry run, a repeated attach and a refused attach request nothing from Unsplash', async () => {
    respond = (_req, res) => sendJson(res, 200, unsplashResults(`${provider.origin}/unsplash/photos/eOLpJytrbsQ/download?ixid=tracking-2`));
    const slug = await product();
    const found = await searchOne('coffee dry run');
    const before = downloads().length;
    const body = { slug, imageUrl: found.url, sourceId: found.sourceId };

    const dry = await call('products.attach_image', { ...body, dryRun: true });
    expect(dry.json()).toMatchObject({ ok: true, dryRun: true, changes: [{ meta: { provider: 'unsplash', license: 'Unsplash License' } }] });
    expect((await t.db.product.findUnique({ where: { slug } }))!.images).toEqual([]);

    expect((await call('products.attach_image', body)).statusCode).toBe(200);
    await nextDownload(before + 1);
    expect((await call('products.attach_image', body)).json().result).toMatchObject({ alreadyAttached: true });
    expectProblem(await call('products.attach_image', { ...body, slug: 'no-such-product' }), 404, 'not_found');
    await new Promise((r) => setTimeout(r, 200));
    expect(downloads()).toHaveLength(before + 1);
  });

  it('sends the key only to the configured API origin: another download_location is replaced by the documented endpoint', async () => {
    const elsewhere = await startLocalServer((_req, res) => sendJson(res, 200, {}));
    try {
      respond = (req, res) => (req.path.endsWith('/download') ? sendJson(res, 200, {}) : sendJson(res, 200, unsplashResults(`${elsewhere.origin}/photos/eOLpJytrbsQ/download?ixid=x`)));
      const slug = await product();
      const found = await searchOne('coffee elsewhere');
      const before = downloads().length;
      expect((await call('products.attach_image', { slug, imageUrl: found.url, sourceId: found.sourceId })).statusCode).toBe(200);
      const download = await nextDownload(before + 1);
      expect(download.path).toBe('/unsplash/photos/eOLpJytrbsQ/download');
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('what attach_image accepts as a source', () => {
  it('refuses a url that is not the named search result’s (400), and an unknown search result (404); nothing changes', async () => {
    respond = (_req, res) => sendJson(res, 200, unsplashResults(`${provider.origin}/unsplash/photos/eOLpJytrbsQ/download`));
    const slug = await product();
    const found = await searchOne('coffee mismatch');
    const mismatch = expectProblem(await call('products.attach_image', { slug, imageUrl: 'https://images.example.com/other.jpg', sourceId: found.sourceId }), 400, 'invalid_request');
    expect(mismatch.detail).toBe(`imageUrl: must be the url of the search result unsplash:eOLpJytrbsQ: ${found.url}`);
    const unknown = expectProblem(await call('products.attach_image', { slug, imageUrl: found.url, sourceId: 'unsplash:never-found' }), 404, 'not_found');
    expect(unknown.detail).toContain('search again');
    expect((await t.db.product.findUnique({ where: { slug } }))!.images).toEqual([]);
  });

  it('records any other sourceId as given, without provider fields', async () => {
    const slug = await product();
    const res = await call('products.attach_image', { slug, imageUrl: 'https://cdn.example.com/own.jpg', sourceId: 'sku-42-front' });
    expect(res.statusCode, res.body).toBe(200);
    const [entry] = await attachEntries(slug);
    expect(entry.meta).toEqual({ imageUrl: 'https://cdn.example.com/own.jpg', alt: null, sourceId: 'sku-42-front' });
  });

  it('every documented result of every provider passes attach_image’s URL rules', () => {
    const urls = [
      'https://cdn.stocksnap.io/img-thumbs/960w/XNVBVXO3B7.jpg',
      (fixture('unsplash-search').response as { results: Array<{ urls: { regular: string } }> }).results[0].urls.regular,
      (fixture('pexels-search').response as { photos: Array<{ src: { large2x: string } }> }).photos[0].src.large2x,
    ];
    for (const url of urls) expect(checkImageUrl(url)).toEqual({ ok: true, url });
  });
});
