// images.search_stock against local servers that speak each provider's documented API (fixtures under
// images-fixtures/, each built from the provider's documentation example and naming its page).
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';
import { sendJson, startLocalServer, type LocalServer, type RecordedRequest } from '../outbound/local-server.ts';

type Fixture = { source: string; response: unknown };
const fixture = (name: string): Fixture => JSON.parse(readFileSync(new URL(`./images-fixtures/${name}.json`, import.meta.url), 'utf8'));
const OPENVERSE = fixture('openverse-search');
const UNSPLASH = fixture('unsplash-search');
const PEXELS = fixture('pexels-search');
const [OPENVERSE_RESULT] = (OPENVERSE.response as { results: Record<string, unknown>[] }).results;

const UNSPLASH_KEY = 'unsplash-test-access-key-7f3a';
const PEXELS_KEY = 'pexels-test-api-key-91bc';

let provider: LocalServer;
/** What the fake provider does with the next requests; each test sets it. */
let respond: (req: RecordedRequest, res: ServerResponse) => void;
beforeAll(async () => {
  provider = await startLocalServer((req, res) => respond(req, res));
});
afterAll(() => provider.close());

const apps: TestApp[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** One app per provider for the tests whose calls succeed (nothing they do moves the circuit breaker). */
const shared = new Map<string, Promise<{ t: TestApp; key: string }>>();
const sharedApp = (name: 'openverse' | 'unsplash' | 'pexels') => {
  if (!shared.has(name)) shared.set(name, appWith(name, {}, false));
  return shared.get(name)!;
};
afterAll(async () => {
  await Promise.all([...shared.values()].map(async (app) => (await app).t.close()));
});

/** The service with one provider configured against the local server (under a path prefix, like a proxy would). */
async function appWith(name: 'openverse' | 'unsplash' | 'pexels', env: Record<string, string> = {}, closeAfterTest = true): Promise<{ t: TestApp; key: string }> {
  const t = await createTestApp({
    env: {
      OUTBOUND_ALLOW_PRIVATE: '1',
      IMAGES_PROVIDER: name,
      OPENVERSE_API_URL: `${provider.origin}/openverse`,
      UNSPLASH_API_URL: `${provider.origin}/unsplash`,
      UNSPLASH_ACCESS_KEY: UNSPLASH_KEY,
      PEXELS_API_URL: `${provider.origin}/pexels`,
      PEXELS_API_KEY: PEXELS_KEY,
      ...env,
    },
  });
  if (closeAfterTest) apps.push(t);
  return { t, key: await t.key(['marketing:write']) };
}

const seen = () => provider.requests.length;
const lastRequest = () => provider.requests.at(-1)!;

/** No secret and no provider internals in what the caller gets. */
function expectNothingLeaked(body: string): void {
  for (const secret of [UNSPLASH_KEY, PEXELS_KEY, provider.origin, `127.0.0.1:${provider.port}`, 'RAW-PROVIDER-BODY']) {
    expect(body).not.toContain(secret);
  }
}

describe('each provider, asked in its documented format', () => {
  it('Openverse: GET /v1/images/ with q, page, page_size, license_type=commercial, aspect_ratio; no key', async () => {
    respond = (_req, res) => sendJson(res, 200, OPENVERSE.response);
    const { t, key } = await sharedApp('openverse');
    const res = await t.call('images.search_stock', { query: 'tree bark', orientation: 'landscape', perPage: 30, page: 1 }, key);
    expect(res.statusCode, res.body).toBe(200);

    const req = lastRequest();
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/openverse/v1/images/');
    // Openverse refuses more than 20 per page without credentials, so the request asks for 20.
    expect(Object.fromEntries(req.query)).toEqual({ q: 'tree bark', page: '1', page_size: '20', license_type: 'commercial', aspect_ratio: 'wide' });
    expect(req.headers.authorization).toBeUndefined();

    expect(res.json()).toEqual({
      ok: true,
      result: {
        provider: 'openverse',
        page: 1,
        totalResults: 1,
        dropped: 0,
        items: [
          {
            sourceId: 'openverse:4bc43a04-ef46-4544-a0c1-63c63f56e276',
            url: 'https://cdn.stocksnap.io/img-thumbs/960w/XNVBVXO3B7.jpg',
            thumbnailUrl: 'https://api.openverse.org/v1/images/4bc43a04-ef46-4544-a0c1-63c63f56e276/thumb/',
            width: 6016,
            height: 4016,
            alt: 'Tree Bark Photo',
            authorName: 'Tim Sullivan',
            authorUrl: 'https://www.secretagencygroup.com',
            license: 'CC0 1.0',
            licenseUrl: 'https://creativecommons.org/publicdomain/zero/1.0/',
            attribution: '"Tree Bark Photo" by Tim Sullivan is marked with CC0 1.0. To view the terms, visit https://creativecommons.org/publicdomain/zero/1.0/.',
            pageUrl: 'https://stocksnap.io/photo/XNVBVXO3B7',
          },
        ],
      },
    });
  });

  it('Unsplash: GET /search/photos with Authorization: Client-ID, query, page, per_page, orientation=squarish', async () => {
    respond = (_req, res) => sendJson(res, 200, UNSPLASH.response);
    const { t, key } = await sharedApp('unsplash');
    const res = await t.call('images.search_stock', { query: 'coffee', orientation: 'square', page: 2, perPage: 5 }, key);
    expect(res.statusCode, res.body).toBe(200);

    const req = lastRequest();
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/unsplash/search/photos');
    expect(Object.fromEntries(req.query)).toEqual({ query: 'coffee', page: '2', per_page: '5', orientation: 'squarish' });
    expect(req.headers.authorization).toBe(`Client-ID ${UNSPLASH_KEY}`);
    expect(req.headers['accept-version']).toBe('v1');
    expect(req.headers['user-agent']).toBe('agent-api');
    expect(req.query.toString()).not.toContain(UNSPLASH_KEY);

    expect(res.json().result).toEqual({
      provider: 'unsplash',
      page: 2,
      totalResults: 133,
      dropped: 0,
      items: [
        {
          sourceId: 'unsplash:eOLpJytrbsQ',
          url: 'https://images.unsplash.com/photo-1416339306562-f3d12fefd36f?ixlib=rb-0.3.5&q=80&fm=jpg&crop=entropy&cs=tinysrgb&w=1080&fit=max&s=92f3e02f63678acc8416d044e189f515',
          thumbnailUrl: 'https://images.unsplash.com/photo-1416339306562-f3d12fefd36f?ixlib=rb-0.3.5&q=80&fm=jpg&crop=entropy&cs=tinysrgb&w=400&fit=max&s=263af33585f9d32af39d165b000845eb',
          width: 4000,
          height: 3000,
          alt: 'A man drinking a coffee.',
          authorName: 'Jeff Sheldon',
          authorUrl: 'http://unsplash.com/@ugmonk',
          license: 'Unsplash License',
          licenseUrl: 'https://unsplash.com/license',
          attribution: 'Photo by Jeff Sheldon on Unsplash',
          pageUrl: 'http://unsplash.com/photos/eOLpJytrbsQ',
        },
      ],
    });
    expectNothingLeaked(res.body);
  });

  it('Pexels: GET /v1/search with Authorization: <key>, query, page, per_page, orientation', async () => {
    respond = (_req, res) => sendJson(res, 200, PEXELS.response);
    const { t, key } = await sharedApp('pexels');
    const res = await t.call('images.search_stock', { query: 'nature', orientation: 'portrait' }, key);
    expect(res.statusCode, res.body).toBe(200);

    const req = lastRequest();
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/pexels/v1/search');
    expect(Object.fromEntries(req.query)).toEqual({ query: 'nature', page: '1', per_page: '10', orientation: 'portrait' });
    expect(req.headers.authorization).toBe(PEXELS_KEY);

    const P = 'https://images.pexels.com/photos/3573351/pexels-photo-3573351.png';
    expect(res.json().result).toEqual({
      provider: 'pexels',
      page: 1,
      totalResults: 10000,
      dropped: 0,
      items: [
        {
          sourceId: 'pexels:3573351',
          url: `${P}?auto=compress&cs=tinysrgb&dpr=2&h=650&w=940`,
          thumbnailUrl: `${P}?auto=compress&cs=tinysrgb&h=350`,
          width: 3066,
          height: 3968,
          alt: 'Brown Rocks During Golden Hour',
          authorName: 'Lukas Rodriguez',
          authorUrl: 'https://www.pexels.com/@lukas-rodriguez-1845331',
          license: 'Pexels License',
          licenseUrl: 'https://www.pexels.com/license/',
          attribution: 'Photo by Lukas Rodriguez on Pexels',
          pageUrl: 'https://www.pexels.com/photo/trees-during-day-3573351/',
        },
      ],
    });
    expectNothingLeaked(res.body);
  });

  it('leaves out and counts a photo whose image URL products.attach_image would refuse: plain http, an IP address', async () => {
    const [photo] = (PEXELS.response as { photos: Array<Record<string, unknown> & { src: Record<string, string> }> }).photos;
    const insecure = { ...photo, id: 1, src: { ...photo.src, large2x: 'http://images.pexels.com/photos/1/p.png' } };
    const ipLiteral = { ...photo, id: 2, src: { ...photo.src, large2x: 'https://203.0.113.7/photos/2/p.png' } };
    const ipThumbnail = { ...photo, id: 3, src: { ...photo.src, medium: 'https://[2001:db8::1]/photos/3/p.png' } };
    respond = (_req, res) => sendJson(res, 200, { ...(PEXELS.response as object), photos: [insecure, ipLiteral, photo, ipThumbnail] });
    const { t, key } = await sharedApp('pexels');
    const res = await t.call('images.search_stock', { query: 'mixed' }, key);
    expect(res.statusCode, res.body).toBe(200);
    const { items, dropped } = res.json().result;
    expect(items.map((i: { sourceId: string }) => i.sourceId)).toEqual(['pexels:3573351']);
    expect(dropped).toBe(3);
    // What is left attaches; what was dropped is not remembered as a search result either.
    const admin = await t.key();
    const slug = `dropped-${Date.now()}`;
    const created = await t.call('products.create', { name: 'Mug', slug, description: 'A stoneware mug.', priceDkk: 9_900, stock: 1 }, admin);
    expect(created.statusCode, created.body).toBe(200);
    const attach = await t.call('products.attach_image', { slug, imageUrl: items[0].url, sourceId: items[0].sourceId }, admin);
    expect(attach.statusCode, attach.body).toBe(200);
    const refused = await t.call('products.attach_image', { slug, imageUrl: 'https://203.0.113.7/photos/2/p.png', sourceId: 'pexels:2' }, admin);
    expectProblem(refused, 404, 'not_found');
    expect((await t.db.product.findUnique({ where: { slug } }))?.images).toEqual([items[0].url]);
  });

  it('returns exactly results 31–60 for perPage 30, page 2 from a provider of 20 per page (its pages 2 and 3)', async () => {
    // An Openverse of 75 results that refuses pages of more than 20, as the real one does without credentials.
    const result = (n: number) => ({ ...OPENVERSE_RESULT, id: `photo-${n}`, title: `Photo ${n}`, url: `https://cdn.example.org/${n}.jpg`, thumbnail: null });
    respond = (req, res) => {
      const page = Number(req.query.get('page'));
      const size = Number(req.query.get('page_size'));
      if (size > 20) return sendJson(res, 401, { detail: 'page_size above 20 needs credentials' });
      const numbers = Array.from({ length: size }, (_, i) => (page - 1) * size + i + 1).filter((n) => n <= 75);
      sendJson(res, 200, { result_count: 75, page_count: 4, page_size: size, page, results: numbers.map(result) });
    };
    const { t, key } = await sharedApp('openverse');
    const before = seen();
    const res = await t.call('images.search_stock', { query: 'windows', page: 2, perPage: 30 }, key);
    expect(res.statusCode, res.body).toBe(200);
    const asked = provider.requests.slice(before).map((r) => [r.query.get('page'), r.query.get('page_size')]);
    expect(asked).toEqual([['2', '20'], ['3', '20']]);
    const { page, totalResults, dropped, items } = res.json().result;
    expect({ page, totalResults, dropped }).toEqual({ page: 2, totalResults: 75, dropped: 0 });
    expect(items.map((i: { alt: string }) => i.alt)).toEqual(Array.from({ length: 30 }, (_, i) => `Photo ${31 + i}`));

    // Paging on neither skips nor repeats: pages 1, 2 and 3 of 30 are results 1–75 once each, the last one short.
    const pages = await Promise.all([1, 3].map(async (p) => (await t.call('images.search_stock', { query: 'windows', page: p, perPage: 30 }, key)).json().result.items));
    const all = [...pages[0], ...items, ...pages[1]].map((i: { alt: string }) => i.alt);
    expect(all).toEqual(Array.from({ length: 75 }, (_, i) => `Photo ${i + 1}`));
  });
});

describe('input and access', () => {
  it('needs a key with marketing:write', async () => {
    respond = (_req, res) => sendJson(res, 200, OPENVERSE.response);
    const { t } = await sharedApp('openverse');
    const before = seen();
    expectProblem(await t.call('images.search_stock', { query: 'mug' }), 401, 'unauthorized');
    expectProblem(await t.call('images.search_stock', { query: 'mug' }, await t.key(['catalog:read'])), 403, 'insufficient_scope');
    expect(seen()).toBe(before);
  });

  it.each([
    [{}, 'query'],
    [{ query: '' }, 'query'],
    [{ query: '   ' }, 'query'],
    [{ query: 'x'.repeat(201) }, 'query'],
    [{ query: 'mug', perPage: 31 }, 'perPage'],
    [{ query: 'mug', perPage: 0 }, 'perPage'],
    [{ query: 'mug', page: 0 }, 'page'],
    [{ query: 'mug', orientation: 'diagonal' }, 'orientation'],
    [{ query: 'mug', color: 'red' }, 'color'],
  ])('refuses %j (400 naming %s) without calling the provider', async (body, field) => {
    respond = (_req, res) => sendJson(res, 200, OPENVERSE.response);
    const { t, key } = await sharedApp('openverse');
    const before = seen();
    const problem = expectProblem(await t.call('images.search_stock', body, key), 400, 'invalid_request');
    expect(problem.detail).toContain(field);
    expect(seen()).toBe(before);
  });
});

describe('failures are answers', () => {
  it('a provider that does not answer in time is 504 upstream_timeout', async () => {
    respond = () => {}; // never answers
    const { t, key } = await appWith('unsplash');
    const problem = expectProblem(await t.call('images.search_stock', { query: 'slow' }, key), 504, 'upstream_timeout');
    expect(problem.detail).toBe('The image provider unsplash did not answer in time.');
  });

  it.each([
    ['HTTP 500', (res: ServerResponse) => sendJson(res, 500, { error: 'RAW-PROVIDER-BODY' }), 'The image provider unsplash answered with HTTP 500.'],
    ['a body that is not JSON', (res: ServerResponse) => (res.writeHead(200, { 'content-type': 'application/json' }), res.end('RAW-PROVIDER-BODY <html>')), 'The image provider unsplash answered with a response the service cannot read.'],
    ['JSON of another shape', (res: ServerResponse) => sendJson(res, 200, { photos: 'RAW-PROVIDER-BODY' }), 'The image provider unsplash answered with a response the service cannot read.'],
    ['a 10 MB body', (res: ServerResponse) => (res.writeHead(200, { 'content-type': 'application/json' }), res.end(Buffer.alloc(10 * 1024 * 1024, 32))), 'The image provider unsplash answered with a response larger than the service accepts.'],
  ])('%s is 502 upstream_error, with nothing of the provider in it', async (_case, answer, detail) => {
    respond = (_req, res) => answer(res);
    const { t, key } = await appWith('unsplash');
    const res = await t.call('images.search_stock', { query: 'broken' }, key);
    const problem = expectProblem(res, 502, 'upstream_error');
    expect(problem.detail).toBe(detail);
    expect(problem.resolution).toBe('Retry later; the external provider failed.');
    expectNothingLeaked(res.body);
  });

  it.each([401, 403])('a refused key (%i) is 502 upstream_error whose resolution names the key setting', async (status) => {
    respond = (_req, res) => sendJson(res, status, { errors: ['OAuth error: The access token is invalid', 'RAW-PROVIDER-BODY'] });
    for (const [name, setting] of [['unsplash', 'UNSPLASH_ACCESS_KEY'], ['pexels', 'PEXELS_API_KEY']] as const) {
      const { t, key } = await appWith(name);
      const res = await t.call('images.search_stock', { query: 'key' }, key);
      const problem = expectProblem(res, 502, 'upstream_error');
      expect(problem.detail).toBe(`The image provider ${name} refused the service's credentials.`);
      expect(problem.resolution).toContain(setting);
      expectNothingLeaked(res.body);
    }
  });

  it('a provider rate limit (429) is 503 with the provider’s Retry-After, or 60 s when it gives none', async () => {
    const { t, key } = await appWith('pexels');
    respond = (_req, res) => sendJson(res, 429, { error: 'RAW-PROVIDER-BODY' }, { 'retry-after': '120' });
    const res = await t.call('images.search_stock', { query: 'busy' }, key);
    expect(expectProblem(res, 503, 'service_unavailable').detail).toBe("The image provider pexels is rate limiting the shop's requests; retry later.");
    expect(res.headers['retry-after']).toBe('120');
    respond = (_req, res) => sendJson(res, 429, {});
    expect((await t.call('images.search_stock', { query: 'busy again' }, key)).headers['retry-after']).toBe('60');
  });

  it('after 5 failures in a row the provider is not called for 30 s (503 at once), then one success closes the breaker', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { t, key } = await appWith('pexels');
    respond = (_req, res) => sendJson(res, 500, {});
    for (let i = 1; i <= 5; i++) expectProblem(await t.call('images.search_stock', { query: `fail ${i}` }, key), 502, 'upstream_error');

    const before = seen();
    const open = await t.call('images.search_stock', { query: 'while open' }, key);
    expect(expectProblem(open, 503, 'service_unavailable').detail).toBe('The image provider pexels failed 5 times in a row and is paused; retry in 30 s.');
    expect(open.headers['retry-after']).toBe('30');
    vi.advanceTimersByTime(20_000);
    expect((await t.call('images.search_stock', { query: 'still open' }, key)).headers['retry-after']).toBe('10');
    expect(seen()).toBe(before);

    // After 30 s one trial call goes through; it fails, so the breaker opens again at once.
    vi.advanceTimersByTime(10_001);
    expectProblem(await t.call('images.search_stock', { query: 'trial 1' }, key), 502, 'upstream_error');
    expect(seen()).toBe(before + 1);
    expectProblem(await t.call('images.search_stock', { query: 'reopened' }, key), 503, 'service_unavailable');
    expect(seen()).toBe(before + 1);

    // The next trial succeeds and the breaker closes: failures count from zero again.
    vi.advanceTimersByTime(30_001);
    respond = (_req, res) => sendJson(res, 200, PEXELS.response);
    expect((await t.call('images.search_stock', { query: 'trial 2' }, key)).statusCode).toBe(200);
    respond = (_req, res) => sendJson(res, 500, {});
    for (let i = 1; i <= 4; i++) expectProblem(await t.call('images.search_stock', { query: `again ${i}` }, key), 502, 'upstream_error');
    expect(seen()).toBe(before + 6);
  });

  it('with no network at all the tool answers 502 and every other tool works', async () => {
    const closed = await startLocalServer(() => {});
    await closed.close();
    const offline: Record<string, string>[] = [{ PEXELS_API_URL: closed.origin }, {
      OUTBOUND_ALLOW_PRIVATE: '0',
      OPENVERSE_API_URL: 'https://api.openverse.org',
      UNSPLASH_API_URL: 'https://api.unsplash.com',
      PEXELS_API_URL: 'https://api.pexels.invalid',
    }];
    for (const env of offline) {
      const { t, key } = await appWith('pexels', env);
      const problem = expectProblem(await t.call('images.search_stock', { query: 'offline' }, key), 502, 'upstream_error');
      expect(problem.detail).toBe('The image provider pexels could not be reached.');
      const other = await t.call('products.search', {});
      expect(other.statusCode).toBe(200);
    }
  });
});

describe('cache', () => {
  it('answers identical searches (ignoring case and spacing) from the cache for 10 minutes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    respond = (_req, res) => sendJson(res, 200, UNSPLASH.response);
    const { t, key } = await appWith('unsplash');
    const before = seen();
    const first = await t.call('images.search_stock', { query: 'Coffee  cup' }, key);
    const again = await t.call('images.search_stock', { query: ' coffee cup ' }, key);
    expect(again.json()).toEqual(first.json());
    expect(seen()).toBe(before + 1);
    expect(lastRequest().query.get('query')).toBe('Coffee cup');

    await t.call('images.search_stock', { query: 'coffee cup', page: 2 }, key);
    await t.call('images.search_stock', { query: 'coffee cup', orientation: 'portrait' }, key);
    expect(seen()).toBe(before + 3);

    vi.advanceTimersByTime(9 * 60_000);
    await t.call('images.search_stock', { query: 'coffee cup' }, key);
    expect(seen()).toBe(before + 3);
    vi.advanceTimersByTime(60_001);
    await t.call('images.search_stock', { query: 'coffee cup' }, key);
    expect(seen()).toBe(before + 4);
  });

  it('does not cache failures', async () => {
    const { t, key } = await appWith('unsplash');
    respond = (_req, res) => sendJson(res, 500, {});
    expectProblem(await t.call('images.search_stock', { query: 'flaky' }, key), 502, 'upstream_error');
    respond = (_req, res) => sendJson(res, 200, UNSPLASH.response);
    expect((await t.call('images.search_stock', { query: 'flaky' }, key)).statusCode).toBe(200);
  });
});

describe('over MCP', () => {
  it('returns the same result as REST, and the same problem on failure', async () => {
    const { t, key } = await appWith('openverse');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const client = new Client({ name: 'images-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
    );
    try {
      const tool = (await client.listTools()).tools.find((x) => x.name === 'images.search_stock');
      expect(tool?.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });

      respond = (_req, res) => sendJson(res, 200, OPENVERSE.response);
      const ok = (await client.callTool({ name: 'images.search_stock', arguments: { query: 'bark' } })) as CallToolResult;
      expect(ok.structuredContent).toEqual((await t.call('images.search_stock', { query: 'bark' }, key)).json());

      respond = (_req, res) => sendJson(res, 503, { error: 'RAW-PROVIDER-BODY' });
      const failed = (await client.callTool({ name: 'images.search_stock', arguments: { query: 'down' } })) as CallToolResult;
      expect(failed.isError).toBe(true);
      const text = failed.content[0];
      if (text?.type !== 'text') throw new Error('expected a text block');
      expect(JSON.parse(text.text)).toMatchObject({ status: 502, code: 'upstream_error', detail: 'The image provider openverse answered with HTTP 503.' });
      expectNothingLeaked(text.text);
    } finally {
      await client.close();
    }
  });
});
