import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetch, OutboundError, type OutboundErrorKind, type Resolver, type SafeFetch } from '../../src/outbound/safe-fetch.ts';
import { sendJson, startLocalServer, startSilentServer, type LocalServer } from './local-server.ts';

const UA = 'agent-api-test';

/** Points the named hosts at chosen addresses, like a DNS server an attacker controls; counts the look-ups. */
function fakeDns(records: Record<string, string[]>): Resolver & { lookups: string[] } {
  const lookups: string[] = [];
  const resolve = async (host: string) => {
    lookups.push(host);
    const addresses = records[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses;
  };
  return Object.assign(resolve, { lookups });
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundError);
  return err as OutboundError;
}

async function expectKind(promise: Promise<unknown>, kind: OutboundErrorKind): Promise<OutboundError> {
  const err = await failure(promise);
  expect({ kind: err.kind, message: err.message }).toMatchObject({ kind });
  return err;
}

describe('address rules (one case per refused class, as a literal and as a DNS answer)', () => {
  const classes: Array<[string, string]> = [
    ['loopback IPv4', '127.0.0.1'],
    ['loopback IPv6', '::1'],
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.20.0.1'],
    ['private 192.168/16', '192.168.1.10'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['link-local IPv6', 'fe80::1'],
    ['CGNAT 100.64/10', '100.64.0.1'],
    ['unique-local fc00::/7', 'fd12:3456::1'],
    ['IPv4-mapped IPv6', '::ffff:127.0.0.1'],
    ['IPv4-mapped IPv6 of a public address', '::ffff:93.184.215.14'],
    ['multicast IPv4', '224.0.0.251'],
    ['multicast IPv6', 'ff02::1'],
    ['unspecified IPv4', '0.0.0.0'],
    ['unspecified IPv6', '::'],
    ['broadcast', '255.255.255.255'],
  ];

  it.each(classes)('refuses %s (%s) given literally, before any DNS', async (_name, address) => {
    const dns = fakeDns({});
    const fetch = createSafeFetch({ allowPrivate: false, userAgent: UA, resolve: dns });
    const host = address.includes(':') ? `[${address}]` : address;
    await expectKind(fetch(`https://${host}/image.jpg`), 'refused_address');
    expect(dns.lookups).toEqual([]);
  });

  it.each(classes)('refuses %s (%s) when a host name resolves to it', async (_name, address) => {
    const fetch = createSafeFetch({ allowPrivate: false, userAgent: UA, resolve: fakeDns({ 'photos.example': [address] }) });
    const err = await expectKind(fetch('https://photos.example/image.jpg'), 'refused_address');
    expect(err.message).toContain('photos.example');
  });

  it('refuses a name when any of its addresses is private, even if the first one is public', async () => {
    const fetch = createSafeFetch({ allowPrivate: false, userAgent: UA, resolve: fakeDns({ 'mixed.example': ['93.184.215.14', '10.0.0.7'] }) });
    await expectKind(fetch('https://mixed.example/'), 'refused_address');
  });

  it('refuses an address in the configured deny list, even with OUTBOUND_ALLOW_PRIVATE', async () => {
    const denyPublic = createSafeFetch({ allowPrivate: false, denyList: ['93.184.0.0/16'], userAgent: UA, resolve: fakeDns({ 'cdn.example': ['93.184.215.14'] }) });
    expect((await expectKind(denyPublic('https://cdn.example/'), 'refused_address')).message).toContain('deny list');
    const denyLocal = createSafeFetch({ allowPrivate: true, denyList: ['127.0.0.1'], userAgent: UA });
    await expectKind(denyLocal('http://127.0.0.1:9/'), 'refused_address');
    await expectKind(denyLocal('http://[::ffff:127.0.0.1]:9/'), 'refused_address');
  });

  it('rejects a deny list entry that is not an address or CIDR block', () => {
    expect(() => createSafeFetch({ allowPrivate: false, denyList: ['10.0.0.0/33'], userAgent: UA })).toThrow(/CIDR/);
    expect(() => createSafeFetch({ allowPrivate: false, denyList: ['intranet'], userAgent: UA })).toThrow(/IP address/);
  });

  it('never opens a connection to a refused address', async () => {
    const listener = await startSilentServer();
    try {
      const fetch = createSafeFetch({ allowPrivate: false, userAgent: UA, resolve: fakeDns({ 'rebind.example': ['127.0.0.1'] }) });
      await expectKind(fetch(`https://rebind.example:${listener.port}/`), 'refused_address');
      expect(listener.connections()).toBe(0);
    } finally {
      await listener.close();
    }
  });
});

describe('schemes', () => {
  it('refuses plain http unless OUTBOUND_ALLOW_PRIVATE is on', async () => {
    const fetch = createSafeFetch({ allowPrivate: false, userAgent: UA, resolve: fakeDns({ 'photos.example': ['93.184.215.14'] }) });
    await expectKind(fetch('http://photos.example/'), 'refused_scheme');
  });

  it.each(['ftp://photos.example/a.jpg', 'file:///etc/passwd', 'data:text/plain,hello', 'gopher://photos.example/'])('refuses %s in every mode', async (url) => {
    for (const allowPrivate of [false, true]) {
      await expectKind(createSafeFetch({ allowPrivate, userAgent: UA })(url), 'refused_scheme');
    }
  });

  it('refuses what is not a URL, and URLs with credentials', async () => {
    await expectKind(createSafeFetch({ allowPrivate: true, userAgent: UA })('not a url'), 'invalid_url');
    await expectKind(createSafeFetch({ allowPrivate: true, userAgent: UA })('https://user:secret@photos.example/'), 'invalid_url');
  });
});

describe('against a local server (OUTBOUND_ALLOW_PRIVATE on)', () => {
  let server: LocalServer;
  let other: LocalServer;
  beforeAll(async () => {
    other = await startLocalServer((req, res) => sendJson(res, 200, { at: 'other' }));
    server = await startLocalServer((req, res, raw) => {
      const hops = Number(req.query.get('hops') ?? 0);
      switch (req.path) {
        case '/json':
          return sendJson(res, 200, { hello: 'world' });
        case '/chain':
          res.writeHead(302, { location: hops > 0 ? `/chain?hops=${hops - 1}` : '/json' });
          return res.end();
        case '/to-credentials':
          res.writeHead(302, { location: `http://user:pw@127.0.0.1:${other.port}/landing` });
          return res.end();
        case '/to-other':
          res.writeHead(307, { location: `${other.origin}/landing` });
          return res.end();
        case '/to':
          res.writeHead(Number(req.query.get('status') ?? 302), { location: req.query.get('location') ?? '/json' });
          return res.end();
        case '/set-cookie':
          res.writeHead(302, { location: '/json', 'set-cookie': 'session=secret; Path=/' });
          return res.end();
        case '/huge': {
          const declared = req.query.get('declared') === '1';
          const total = 10 * 1024 * 1024;
          res.writeHead(200, declared ? { 'content-length': String(total) } : {});
          const chunk = Buffer.alloc(64 * 1024, 120);
          let sent = 0;
          const pump = () => {
            while (sent < total) {
              sent += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end();
          };
          raw.socket?.on('error', () => {});
          return pump();
        }
        case '/never':
          return; // holds the request open
        case '/not-json':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('<html>oops</html>');
        default:
          return sendJson(res, 404, {});
      }
    });
  });
  afterAll(async () => {
    await server.close();
    await other.close();
  });
  const fetchLocal = (extra: { denyList?: string[]; resolve?: Resolver } = {}): SafeFetch => createSafeFetch({ allowPrivate: true, userAgent: UA, ...extra });

  it('connects to the address it checked, sends the service User-Agent, and parses JSON', async () => {
    const dns = fakeDns({ 'shop-photos.example': ['127.0.0.1'] });
    const res = await fetchLocal({ resolve: dns })(`http://shop-photos.example:${server.port}/json`, { headers: { 'User-Agent': 'spoofed' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ hello: 'world' });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(dns.lookups).toEqual(['shop-photos.example']);
    const seen = server.requests.at(-1)!;
    expect(seen.headers.host).toBe(`shop-photos.example:${server.port}`);
    expect(seen.headers['user-agent']).toBe(UA);
  });

  it('follows up to 3 redirects and refuses the 4th', async () => {
    const ok = await fetchLocal()(`${server.origin}/chain?hops=2`);
    expect(ok.status).toBe(200);
    expect(ok.url).toBe(`${server.origin}/json`);
    await expectKind(fetchLocal()(`${server.origin}/chain?hops=3`), 'too_many_redirects');
    await expectKind(fetchLocal()(`${server.origin}/chain?hops=0`, { maxRedirects: 0 }), 'too_many_redirects');
  });

  it('checks every redirect target again', async () => {
    const fetch = fetchLocal({ denyList: ['127.0.0.2'] });
    const before = server.requests.length;
    await expectKind(fetch(`${server.origin}/to?location=${encodeURIComponent(`http://127.0.0.2:${server.port}/json`)}`), 'refused_address');
    expect(server.requests.length).toBe(before + 1);
  });

  it('trusts an operator-configured URL but not where it redirects to another origin', async () => {
    const fetch = createSafeFetch({ allowPrivate: true, denyList: ['127.0.0.1'], userAgent: UA, resolve: fakeDns({ 'elsewhere.example': ['127.0.0.1'] }) });
    expect((await fetch(`${server.origin}/json`, { trusted: true })).status).toBe(200);
    await expectKind(fetch(`${server.origin}/json`), 'refused_address');
    const away = encodeURIComponent(`http://elsewhere.example:${server.port}/json`);
    await expectKind(fetch(`${server.origin}/to?location=${away}`, { trusted: true }), 'refused_address');
  });

  it('drops Authorization and Cookie when a redirect changes origin, keeps them on the same origin', async () => {
    const secret = { Authorization: 'Client-ID s3cret', Cookie: 'a=b', 'X-Trace': 'kept' };
    const res = await fetchLocal()(`${server.origin}/to-other`, { headers: secret });
    expect(res.json()).toEqual({ at: 'other' });
    const landed = other.requests.at(-1)!;
    expect(landed.headers.authorization).toBeUndefined();
    expect(landed.headers.cookie).toBeUndefined();
    expect(landed.headers['x-trace']).toBe('kept');
    expect(landed.headers['user-agent']).toBe(UA);

    await fetchLocal()(`${server.origin}/chain?hops=0`, { headers: secret });
    expect(server.requests.at(-1)!.headers.authorization).toBe('Client-ID s3cret');
  });

  it('does not follow a redirect to a URL with credentials', async () => {
    const before = other.requests.length;
    await expectKind(fetchLocal()(`${server.origin}/to-credentials`), 'invalid_url');
    expect(other.requests.length).toBe(before);
  });

  it('keeps no cookies: a Set-Cookie is not sent back on the redirect', async () => {
    await fetchLocal()(`${server.origin}/set-cookie`);
    const followed = server.requests.at(-1)!;
    expect(followed.path).toBe('/json');
    expect(followed.headers.cookie).toBeUndefined();
  });

  it('turns a POST into a GET without body after 303, and keeps it after 307', async () => {
    const body = JSON.stringify({ a: 1 });
    const headers = { 'Content-Type': 'application/json' };
    await fetchLocal()(`${server.origin}/to?status=303`, { method: 'POST', body, headers });
    expect(server.requests.at(-1)).toMatchObject({ method: 'GET', path: '/json', body: '' });
    expect(server.requests.at(-1)!.headers['content-type']).toBeUndefined();
    await fetchLocal()(`${server.origin}/to?status=307`, { method: 'POST', body, headers });
    expect(server.requests.at(-1)).toMatchObject({ method: 'POST', path: '/json', body });
  });

  it('stops reading past the size cap, whether or not the length is declared (10 MB bodies)', async () => {
    const declared = await expectKind(fetchLocal()(`${server.origin}/huge?declared=1`), 'too_large');
    expect(declared.message).toContain(String(2 * 1024 * 1024));
    await expectKind(fetchLocal()(`${server.origin}/huge`), 'too_large');
    const small = await fetchLocal()(`${server.origin}/json`, { maxBytes: 5 }).catch((e: unknown) => e);
    expect(small).toMatchObject({ kind: 'too_large' });
  });

  it('gives up when the whole exchange takes longer than the total timeout', async () => {
    const err = await expectKind(fetchLocal()(`${server.origin}/never`, { timeoutMs: 300 }), 'timeout');
    expect(err.message).toContain('300 ms');
  });

  it('reports a body that is not JSON as invalid_body, and a closed port as network', async () => {
    const res = await fetchLocal()(`${server.origin}/not-json`);
    expect(() => res.json()).toThrow(expect.objectContaining({ kind: 'invalid_body' }));
    const closed = await startLocalServer(() => {});
    await closed.close();
    await expectKind(fetchLocal()(`${closed.origin}/`), 'network');
  });

  it('reports a name that does not resolve as network', async () => {
    await expectKind(fetchLocal({ resolve: fakeDns({}) })('http://nowhere.example/'), 'network');
  });
});

describe('connect timeout', () => {
  it('gives up on a TLS handshake that never completes after connectTimeoutMs (trusted URL: no address rule)', async () => {
    const silent = await startSilentServer();
    try {
      const fetch = createSafeFetch({ allowPrivate: false, userAgent: UA });
      const err = await expectKind(fetch(`https://127.0.0.1:${silent.port}/`, { trusted: true, connectTimeoutMs: 200, timeoutMs: 10_000 }), 'timeout');
      expect(err.message).toMatch(/connection/);
      expect(silent.connections()).toBe(1);
    } finally {
      await silent.close();
    }
  });
});

describe('kept-alive connections', () => {
  /** One handler on 127.0.0.1 and 127.0.0.2 (same port); notes the local address each connection arrived at. */
  async function startTwoAddressServer() {
    const connections: string[] = [];
    let requests = 0;
    const servers = ['127.0.0.1', '127.0.0.2'].map(() =>
      createServer((req, res) => {
        requests++;
        req.resume().on('end', () => {
          if (req.url === '/big') res.writeHead(200, { 'content-length': '4096' }).end('x'.repeat(4096));
          else res.writeHead(204).end();
        });
      }).on('connection', (socket) => connections.push(socket.localAddress ?? '')),
    );
    await new Promise<void>((resolve) => servers[0].listen(0, '127.0.0.1', resolve));
    const { port } = servers[0].address() as AddressInfo;
    await new Promise<void>((resolve) => servers[1].listen(port, '127.0.0.2', resolve));
    const close = () => Promise.all(servers.map((s) => new Promise((resolve) => s.closeAllConnections() ?? s.close(resolve))));
    return { port, connections, requests: () => requests, close };
  }
  let server: Awaited<ReturnType<typeof startTwoAddressServer>>;
  beforeAll(async () => {
    server = await startTwoAddressServer();
  });
  afterAll(() => server.close());

  it('reuses a connection to the same origin and checked address, and still resolves and checks every call', async () => {
    const dns = fakeDns({ 'hooks.example': ['127.0.0.1'] });
    const fetch = createSafeFetch({ allowPrivate: true, userAgent: UA, resolve: dns });
    const before = server.connections.length;
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`http://hooks.example:${server.port}/`)).status).toBe(204);
      // undici hands the socket back to its pool just after the body ends; a call in the same tick opens another.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(server.connections.length - before).toBe(1);
    expect(dns.lookups).toEqual(['hooks.example', 'hooks.example', 'hooks.example']);
  });

  it('never sends over a kept connection once DNS moves the host: a new checked address gets its own, a refused one none', async () => {
    const records = { 'moving.example': ['127.0.0.1'] };
    const fetch = createSafeFetch({ allowPrivate: true, denyList: ['127.0.0.3'], userAgent: UA, resolve: fakeDns(records) });
    const url = `http://moving.example:${server.port}/`;
    const before = server.connections.length;
    await fetch(url);
    records['moving.example'] = ['127.0.0.2'];
    await fetch(url);
    expect(server.connections.slice(before)).toEqual(['127.0.0.1', '127.0.0.2']);
    records['moving.example'] = ['127.0.0.3'];
    const requests = server.requests();
    await expectKind(fetch(url), 'refused_address');
    expect(server.requests()).toBe(requests);
  });

  it('closes a connection whose answer was cut off at the size cap; the next call opens a new one', async () => {
    const fetch = createSafeFetch({ allowPrivate: true, userAgent: UA });
    const before = server.connections.length;
    await expectKind(fetch(`http://127.0.0.1:${server.port}/big`, { maxBytes: 100 }), 'too_large');
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(204);
    expect(server.connections.length - before).toBe(2);
  });
});
