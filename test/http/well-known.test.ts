// Discovery (docs/discovery.md, docs/agent-surfaces.md; docs/robustness.md row 39): the RFC 9727 API catalog, the MCP
// server card at its reserved path and the two earlier ones, the MCP catalog and the AI Catalog, the OpenAPI
// document, the rendered reference at /docs and the problem pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/errors.ts';
import { buildDocument } from '../../src/openapi/build-document.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';

const HOST = 'shop.test:8080';
const BASE = `http://${HOST}`;
// The registry says which tools are anonymous; test/docs checks that set against docs/contract.md.
const ANONYMOUS = TOOLS.filter((tool) => tool.anonymous).map((tool) => tool.name).sort();

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const get = (url: string, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url, headers: { host: HOST } });

describe('GET/HEAD /.well-known/api-catalog', () => {
  it('returns an RFC 9727 linkset pointing at the OpenAPI document, the docs and the MCP server card', async () => {
    const res = await get('/.well-known/api-catalog');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    expect(res.json()).toEqual({
      linkset: [
        {
          anchor: `${BASE}/api/v1`,
          'service-desc': [{ href: `${BASE}/openapi.json`, type: 'application/vnd.oai.openapi+json;version=3.1' }],
          'service-doc': [{ href: `${BASE}/docs`, type: 'text/html' }],
          status: [{ href: `${BASE}/health`, type: 'application/json' }],
        },
        {
          anchor: `${BASE}/api/mcp`,
          'service-desc': [
            { href: `${BASE}/api/mcp/server-card`, type: 'application/mcp-server-card+json' },
            { href: `${BASE}/.well-known/mcp/server-card.json`, type: 'application/json' },
            { href: `${BASE}/.well-known/mcp.json`, type: 'application/json' },
          ],
          'service-meta': [
            { href: `${BASE}/.well-known/mcp/catalog.json`, type: 'application/json' },
            { href: `${BASE}/.well-known/ai-catalog.json`, type: 'application/ai-catalog+json' },
            { href: `${BASE}/.well-known/oauth-protected-resource/api/mcp`, type: 'application/json' },
          ],
          'service-doc': [{ href: `${BASE}/docs`, type: 'text/html' }],
        },
        {
          anchor: `${BASE}/api/mcp/admin`,
          'service-desc': [{ href: `${BASE}/api/mcp/server-card`, type: 'application/mcp-server-card+json' }],
          'service-meta': [
            { href: `${BASE}/.well-known/mcp/catalog.json`, type: 'application/json' },
            { href: `${BASE}/.well-known/ai-catalog.json`, type: 'application/ai-catalog+json' },
            { href: `${BASE}/.well-known/oauth-protected-resource/api/mcp/admin`, type: 'application/json' },
          ],
          'service-doc': [{ href: `${BASE}/docs`, type: 'text/html' }],
        },
        {
          anchor: `${BASE}/ucp`,
          'service-desc': [
            { href: `${BASE}/.well-known/ucp`, type: 'application/json' },
            { href: `${BASE}/openapi/checkout.json`, type: 'application/vnd.oai.openapi+json;version=3.1' },
          ],
          'service-doc': [{ href: `${BASE}/docs`, type: 'text/html' }],
        },
        {
          anchor: `${BASE}/acp`,
          'service-desc': [{ href: `${BASE}/openapi/checkout.json`, type: 'application/vnd.oai.openapi+json;version=3.1' }],
          'service-doc': [{ href: `${BASE}/docs`, type: 'text/html' }],
        },
      ],
    });
  });

  it('links only documents that answer 200', async () => {
    const hrefs = (await get('/.well-known/api-catalog')).json().linkset.flatMap((set: Record<string, unknown>) =>
      Object.values(set).flatMap((links) => (Array.isArray(links) ? links.map((l: { href: string }) => l.href) : [])),
    );
    expect(hrefs.length).toBeGreaterThan(8);
    for (const href of hrefs) expect((await get(new URL(href).pathname)).statusCode, href).toBe(200);
  });

  it('answers HEAD with the rel="api-catalog" Link and no body', async () => {
    const res = await get('/.well-known/api-catalog', 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers.link).toBe(`<${BASE}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(res.body).toBe('');
  });

  it('uses PUBLIC_BASE_URL instead of Host when set', async () => {
    const other = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.com/' } });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/.well-known/api-catalog', headers: { host: 'evil.example' } });
      expect(JSON.stringify(res.json())).not.toContain('evil.example');
      expect(res.json().linkset[0].anchor).toBe('https://api.example.com/api/v1');
      const card = await other.app.inject({ method: 'GET', url: '/.well-known/mcp.json', headers: { host: 'evil.example' } });
      expect(card.json()).toMatchObject({
        name: 'com.example.api/agent-api',
        remotes: [{ url: 'https://api.example.com/api/mcp' }, { url: 'https://api.example.com/api/mcp/admin' }],
      });
    } finally {
      await other.close();
    }
  });
});

describe('MCP server card', () => {
  it('is served at /api/mcp/server-card as application/mcp-server-card+json, and byte-identical at the two earlier paths', async () => {
    const card = await get('/api/mcp/server-card');
    expect(card.headers['content-type']).toBe('application/mcp-server-card+json');
    const earlier = [await get('/.well-known/mcp/server-card.json'), await get('/.well-known/mcp.json')];
    for (const res of [card, ...earlier]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.rawPayload.equals(card.rawPayload)).toBe(true);
    }
    for (const res of earlier) expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('says what server/discover says: name, version, capabilities, protocol versions', async () => {
    const card = (await get('/api/mcp/server-card')).json();
    const discover = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: {
        host: HOST, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover',
      },
      payload: {
        jsonrpc: '2.0', id: 1, method: 'server/discover',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } },
      },
    });
    const { result } = discover.json();
    const serverInfo = result._meta['io.modelcontextprotocol/serverInfo'];
    expect(card.version).toBe(serverInfo.version);
    expect(card.title).toBe(serverInfo.title);
    expect(card._meta['agent-api/access'].serverInfoName).toBe(serverInfo.name);
    expect(card.capabilities).toEqual(result.capabilities);
    expect(card.remotes[0].supportedProtocolVersions).toEqual(expect.arrayContaining(result.supportedVersions));
  });

  it('is listed by the MCP catalog at /.well-known/mcp/catalog.json as the draft writes it: specVersion and entries', async () => {
    const res = await get('/.well-known/mcp/catalog.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    // Exactly the draft's members, so nothing of the earlier {servers: […]} shape is left for a client to misread.
    expect(res.json()).toStrictEqual({
      specVersion: 'draft',
      entries: [
        { identifier: 'urn:air:shop.test:agent-api', displayName: 'Agent API', type: 'application/mcp-server-card+json', url: `${BASE}/api/mcp/server-card` },
        {
          identifier: 'urn:air:shop.test:agent-api-signin',
          displayName: 'Agent API (sign in with OAuth)',
          type: 'application/mcp-server-card+json',
          url: `${BASE}/api/mcp/server-card`,
        },
      ],
    });
  });

  it('has catalog entries a client following the draft resolves: the URN names the card, the URL answers it by its type', async () => {
    const { entries } = (await get('/.well-known/mcp/catalog.json')).json() as { entries: { identifier: string; type: string; url: string }[] };
    const card = (await get('/api/mcp/server-card')).json() as { name: string; remotes: { url: string }[] };
    // Card `test.shop/agent-api` → `urn:air:shop.test:agent-api`: publisher the forward domain, then the name after '/'.
    const [namespace, name] = card.name.split('/');
    expect(entries.map((e) => e.identifier)).toEqual([`urn:air:${namespace.split('.').reverse().join('.')}:${name}`, `urn:air:shop.test:${name}-signin`]);
    for (const entry of entries) {
      expect(entry.identifier).toMatch(/^urn:air:[a-z0-9.-]+:[a-z0-9.-]+$/);
      const fetched = await t.app.inject({ method: 'GET', url: new URL(entry.url).pathname, headers: { host: HOST, accept: entry.type } });
      expect(fetched.statusCode).toBe(200);
      expect(fetched.headers['content-type']).toBe(entry.type);
    }
    // One entry per MCP endpoint of the origin: each endpoint is a remote of the card the entries point at.
    expect(card.remotes.map((r) => r.url)).toEqual([`${BASE}/api/mcp`, `${BASE}/api/mcp/admin`]);
  });

  it('publishes the same entries as an AI Catalog at /.well-known/ai-catalog.json, with the discovery headers', async () => {
    const ai = await get('/.well-known/ai-catalog.json');
    const mcp = await get('/.well-known/mcp/catalog.json');
    expect(ai.statusCode).toBe(200);
    expect(ai.headers['content-type']).toBe('application/ai-catalog+json');
    expect(ai.json()).toStrictEqual({ specVersion: '1.0', entries: mcp.json().entries });
    for (const res of [ai, mcp]) {
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toBe('GET');
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      // Built from the request's Host (no PUBLIC_BASE_URL here): a shared cache must key on it.
      expect(res.headers.vary).toBe('Host, X-Forwarded-Host, X-Forwarded-Proto');
    }
  });

  it('lets clients revalidate the catalogs and the card (ETag, If-None-Match → 304), from a browser too', async () => {
    for (const url of ['/.well-known/mcp/catalog.json', '/.well-known/ai-catalog.json', '/api/mcp/server-card', '/.well-known/api-catalog']) {
      const first = await get(url);
      const etag = String(first.headers.etag);
      expect(etag, url).toMatch(/^"[\w-]+"$/);
      expect(first.headers['access-control-expose-headers'], url).toBe('ETag');
      expect(first.headers['access-control-allow-headers'], url).toBe('Content-Type, If-None-Match');
      const again = await t.app.inject({ method: 'GET', url, headers: { host: HOST, 'if-none-match': etag } });
      expect(again.statusCode, url).toBe(304);
      expect(again.body, url).toBe('');
      expect(again.headers.etag, url).toBe(etag);
      expect(again.headers['cache-control'], url).toBe('public, max-age=3600');
      // Another origin's document has other bytes, so another tag: a cached copy is never revalidated across hosts.
      const elsewhere = await t.app.inject({ method: 'GET', url, headers: { host: 'other.test', 'if-none-match': etag } });
      expect(elsewhere.statusCode, url).toBe(200);
      expect(elsewhere.headers.etag, url).not.toBe(etag);
    }
  });

  it('derives the identifiers from PUBLIC_BASE_URL, and from a fixed publisher for hosts without a DNS name', async () => {
    const other = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.com/' } });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/.well-known/mcp/catalog.json', headers: { host: 'evil.example' } });
      expect(res.json().entries.map((e: { identifier: string }) => e.identifier)).toEqual(['urn:air:api.example.com:agent-api', 'urn:air:api.example.com:agent-api-signin']);
      expect(res.headers.vary).toBeUndefined();
      expect(JSON.stringify(res.json())).not.toContain('evil.example');
    } finally {
      await other.close();
    }
    for (const host of ['127.0.0.1:3000', '[::1]:3000', 'localhost:3000']) {
      const res = await t.app.inject({ method: 'GET', url: '/.well-known/mcp/catalog.json', headers: { host } });
      expect(res.json().entries[0].identifier, host).toBe('urn:air:agent-api.local:agent-api');
    }
  });

  it('describes the endpoint, transport, auth and the anonymous tools', async () => {
    const card = (await get('/.well-known/mcp/server-card.json')).json();
    expect(card).toMatchObject({
      $schema: expect.stringMatching(/^https:\/\//),
      version: '1.0.0',
      title: 'Agent API',
      remotes: [
        {
          type: 'streamable-http',
          url: `${BASE}/api/mcp`,
          supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
          headers: [{ name: 'Authorization', isRequired: false, isSecret: true }],
          authentication: { required: false, schemes: ['bearer'] },
        },
        {
          type: 'streamable-http',
          url: `${BASE}/api/mcp/admin`,
          supportedProtocolVersions: expect.arrayContaining(['2025-11-25', '2025-06-18']),
          authentication: { required: true, schemes: ['oauth2', 'bearer'] },
        },
      ],
      capabilities: { tools: { listChanged: false } },
    });
    expect(card.name).toMatch(/^[a-z0-9.-]+\/[a-z0-9.-]+$/);
    expect(card.name).toBe('test.shop/agent-api');
    expect(card.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(ANONYMOUS);
    expect(card._meta['agent-api/access'].unlock).toMatch(/Authorization: Bearer/);
  });

  it('contains no secrets', async () => {
    const key = await t.key();
    const body = (await get('/.well-known/mcp/server-card.json')).body;
    expect(body).not.toContain(key);
    expect(body).not.toMatch(/aak_[A-Za-z0-9]/);
    expect(body).not.toContain(t.url);
    expect(body).not.toMatch(/postgres(ql)?:\/\//);
  });
});

describe('GET /openapi.json', () => {
  it('serves the document generated from the registry', async () => {
    const res = await get('/openapi.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/vnd\.oai\.openapi\+json;version=3\.1/);
    const { servers, ...rest } = res.json();
    const { servers: _committed, ...generated } = JSON.parse(JSON.stringify(buildDocument(TOOLS)));
    expect(rest).toEqual(generated);
    // No PUBLIC_BASE_URL here: the request's own origin.
    expect(servers).toEqual([{ url: BASE, description: 'This service.' }]);
  });

  it('names PUBLIC_BASE_URL as its server when set', async () => {
    const other = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.com/' } });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/openapi.json', headers: { host: HOST } });
      expect(res.json().servers).toEqual([{ url: 'https://api.example.com', description: 'This service.' }]);
    } finally {
      await other.close();
    }
  });
});

describe('GET /docs', () => {
  it('is the reference page: the pinned Redoc bundle and its start script, both served by this service', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toMatch(/^<!doctype html>/);
    const scripts = [...res.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(['/docs/assets/redoc.standalone.js', '/docs/assets/init.js']);
    for (const src of scripts) {
      const js = await get(src);
      expect(js.statusCode, src).toBe(200);
      expect(js.headers['content-type'], src).toBe('text/javascript; charset=utf-8');
    }
    expect((await get('/docs/assets/redoc.standalone.js')).body).not.toContain('https://cdn.redoc.ly');
  });
});

describe('GET /problems', () => {
  it('lists every problem code with a link to its page', async () => {
    const res = await get('/problems');
    expect(res.statusCode).toBe(200);
    for (const code of Object.keys(PROBLEMS)) expect(res.body).toContain(`<a href="/problems/${code}">`);
  });
});

describe('GET /problems/:code', () => {
  it('serves a page for every problem code', async () => {
    for (const [code, p] of Object.entries(PROBLEMS)) {
      const res = await get(`/problems/${code}`);
      expect(res.statusCode, code).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain(`<code>${code}</code>`);
      expect(res.body).toContain(String(p.status));
    }
  });

  it('is where a problem’s type points', async () => {
    const problem = expectProblem(await t.call('products.delete', { slug: 'x' }, await t.key(['products:write'])), 422, 'confirmation_required');
    expect((await get(problem.type as string)).statusCode).toBe(200);
  });

  it('answers an unknown code with a 404 problem', async () => {
    expectProblem(await get('/problems/no_such_code'), 404, 'not_found');
    expectProblem(await get('/problems/constructor'), 404, 'not_found');
  });
});
