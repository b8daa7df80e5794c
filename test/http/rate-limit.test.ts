// Rate limits (docs/contract.md; docs/robustness.md rows 22–23): the anonymous, pre-auth and per-key
// limiters, their headers on success, 429 problem + Retry-After, and the pre-auth limiter tripping before any
// database query. One app with small limits; each scenario uses its own client address so counters are separate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, generateKeyId } from '../../src/auth/key-format.ts';
import { rateLimitHeaders, type LimitState } from '../../src/http/rate-limit-headers.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { sleep } from '../helpers/calls.ts';
import { expectProblem } from '../helpers/problem.ts';

const QUOTA_EXCEEDED = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

let t: TestApp;
let queries = 0;
beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_ANON_MAX: '3', RATE_LIMIT_PREAUTH_MAX: '4', RATE_LIMIT_AUTH_MAX: '2' },
    onQuery: () => { queries++; },
  });
});
afterAll(async () => {
  await t?.close();
});

const from = (ip: string, headers: Record<string, string> = {}) => ({ remoteAddress: ip, headers });
const search = (ip: string, key?: string, headers: Record<string, string> = {}) => t.call('products.search', {}, key, from(ip, headers));

function expectRateLimited(res: Awaited<ReturnType<typeof search>>, policy: string) {
  const body = expectProblem(res, 429, 'rate_limited');
  expect(body.type).toBe(QUOTA_EXCEEDED);
  expect(body.title).toBe('Too Many Requests');
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  // Retry-After must not point earlier than the end of the window in the RateLimit field (draft-ietf-httpapi-ratelimit-headers-11).
  const t429 = Number(new RegExp(`"${policy}";r=0;t=(\\d+)`).exec(String(res.headers.ratelimit))?.[1]);
  expect(retryAfter).toBeGreaterThanOrEqual(t429);
  expect(res.headers['ratelimit-remaining']).toBe('0');
  return body;
}

describe('anonymous limiter (RATE_LIMIT_ANON_MAX=3)', () => {
  it('POST /api/v1/tools/products.search success carries RateLimit-Policy, RateLimit and the legacy fields', async () => {
    const res = await search('10.0.0.1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"anon";q=3;w=60');
    expect(res.headers.ratelimit).toMatch(/^"anon";r=2;t=(\d+)$/);
    const tSeconds = Number(/t=(\d+)/.exec(String(res.headers.ratelimit))![1]);
    expect(tSeconds).toBeGreaterThanOrEqual(59);
    expect(tSeconds).toBeLessThanOrEqual(60);
    expect(res.headers['ratelimit-limit']).toBe('3');
    expect(res.headers['ratelimit-remaining']).toBe('2');
    expect(res.headers['ratelimit-reset']).toBe(String(tSeconds));
    expect(res.headers['retry-after']).toBeUndefined();
  });

  it('the remaining quota counts down, and the 4th anonymous call is 429 with Retry-After', async () => {
    const ip = '10.0.0.2';
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await search(ip);
      expect(res.statusCode).toBe(200);
      remaining.push(String(res.headers['ratelimit-remaining']));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const res = await search(ip);
    expectRateLimited(res, 'anon');
    expect(res.headers['ratelimit-policy']).toBe('"anon";q=3;w=60');
    // Still limited, on every tool route, including unknown ones.
    expectRateLimited(await t.call('categories.list', {}, undefined, from(ip)), 'anon');
    expectRateLimited(await t.call('no.such_tool', {}, undefined, from(ip)), 'anon');
  });

  it('rotating X-Forwarded-For does not reset the anonymous limit', async () => {
    const ip = '10.0.0.3';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await search(ip, undefined, { 'x-forwarded-for': `203.0.113.${i}`, 'x-real-ip': `198.51.100.${i}`, forwarded: `for=192.0.2.${i}` });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
  });

  it('another client address has its own allowance', async () => {
    const res = await search('10.0.0.4');
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe('2');
  });

  it('a concurrent burst of 8 gets exactly its 3 allowed calls, each with its own remaining count, and 5 refusals', async () => {
    const responses = await Promise.all(Array.from({ length: 8 }, () => search('10.0.0.5')));
    const allowed = responses.filter((r) => r.statusCode === 200);
    expect(allowed).toHaveLength(3);
    expect(allowed.map((r) => r.headers['ratelimit-remaining']).sort()).toEqual(['0', '1', '2']);
    const refused = responses.filter((r) => r.statusCode !== 200);
    expect(refused).toHaveLength(5);
    for (const res of refused) expectRateLimited(res, 'anon');
  });
});

describe('pre-auth limiter (RATE_LIMIT_PREAUTH_MAX=4)', () => {
  it('counts bad-key requests and trips before any database query', async () => {
    const ip = '10.0.1.1';
    await sleep(50);
    queries = 0;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      // Well-formed keys of unknown ids: each costs one key lookup while the allowance lasts.
      const res = await search(ip, generateKey(generateKeyId()).key);
      statuses.push(res.statusCode);
      expect(res.headers['ratelimit-policy']).toBe('"preauth";q=4;w=60');
      expect(res.headers.ratelimit).toMatch(new RegExp(`^"preauth";r=${3 - i};t=\\d+$`));
    }
    expect(statuses).toEqual([401, 401, 401, 401]);
    expect(queries).toBe(4);

    queries = 0;
    for (let i = 0; i < 3; i++) {
      const res = await search(ip, generateKey(generateKeyId()).key);
      expectRateLimited(res, 'preauth');
      expect(res.headers.ratelimit).toMatch(/^"preauth";r=0;t=\d+$/);
    }
    expect(queries).toBe(0);
  });

  it('counts malformed keys too, and also blocks a valid key from that address', async () => {
    const ip = '10.0.1.2';
    for (let i = 0; i < 4; i++) expectProblem(await search(ip, 'garbage'), 401, 'unauthorized');
    expectRateLimited(await search(ip, 'garbage'), 'preauth');
    const good = await t.key(['catalog:read']);
    expectRateLimited(await search(ip, good), 'preauth');
  });

  it('is separate from the anonymous allowance of the same address', async () => {
    const ip = '10.0.1.3';
    for (let i = 0; i < 3; i++) expect((await search(ip)).statusCode).toBe(200);
    expectRateLimited(await search(ip), 'anon');
    const good = await t.key(['catalog:read']);
    const res = await search(ip, good);
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('per-key limiter (RATE_LIMIT_AUTH_MAX=2)', () => {
  it('a successful authenticated call reports the pre-auth and per-key policies', async () => {
    const key = await t.key(['catalog:read']);
    const res = await search('10.0.2.1', key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"preauth";q=4;w=60, "key";q=2;w=60');
    expect(res.headers.ratelimit).toMatch(/^"preauth";r=3;t=\d+, "key";r=1;t=\d+$/);
    // The legacy fields describe the most restrictive policy.
    expect(res.headers['ratelimit-limit']).toBe('2');
    expect(res.headers['ratelimit-remaining']).toBe('1');
  });

  it('the 3rd call with one key is 429, from any address; another key is unaffected', async () => {
    const key = await t.key(['catalog:read']);
    expect((await search('10.0.2.2', key)).statusCode).toBe(200);
    expect((await search('10.0.2.3', key)).statusCode).toBe(200);
    const res = await search('10.0.2.4', key);
    expectRateLimited(res, 'key');
    expect(res.headers.ratelimit).toMatch(/"key";r=0;t=\d+$/);
    const other = await t.key(['catalog:read']);
    expect((await search('10.0.2.5', other)).statusCode).toBe(200);
  });

  it('a rate-limited write changes nothing', async () => {
    const key = await t.key(['categories:write']);
    const upsert = (slug: string) => t.call('categories.upsert', { slug, name: 'Limited' }, key, from('10.0.2.6'));
    expect((await upsert('rl-one')).statusCode).toBe(200);
    expect((await upsert('rl-two')).statusCode).toBe(200);
    expectRateLimited(await upsert('rl-three'), 'key');
    expect(await t.db.category.findUnique({ where: { slug: 'rl-three' } })).toBeNull();
    expect(await t.db.auditEntry.count({ where: { tool: 'categories.upsert' } })).toBe(2);
  });
});

describe('src/http/rate-limit-headers.ts', () => {
  const state = (s: Partial<LimitState>): LimitState => ({
    policy: 'anon', limit: 60, remaining: 59, resetSeconds: 60, windowSeconds: 60, exceeded: false, ...s,
  });

  it('emits nothing when no policy counted the request', () => {
    expect(rateLimitHeaders([])).toEqual({});
  });

  it('formats one policy as draft-ietf-httpapi-ratelimit-headers-11 lists plus legacy fields', () => {
    expect(rateLimitHeaders([state({})])).toEqual({
      'RateLimit-Policy': '"anon";q=60;w=60',
      RateLimit: '"anon";r=59;t=60',
      'RateLimit-Limit': '60',
      'RateLimit-Remaining': '59',
      'RateLimit-Reset': '60',
    });
  });

  it('lists several policies and reports the most restrictive in the legacy fields', () => {
    const h = rateLimitHeaders([
      state({ policy: 'preauth', limit: 120, remaining: 100, resetSeconds: 50 }),
      state({ policy: 'key', limit: 600, remaining: 3, resetSeconds: 12 }),
    ]);
    expect(h['RateLimit-Policy']).toBe('"preauth";q=120;w=60, "key";q=600;w=60');
    expect(h.RateLimit).toBe('"preauth";r=100;t=50, "key";r=3;t=12');
    expect([h['RateLimit-Limit'], h['RateLimit-Remaining'], h['RateLimit-Reset']]).toEqual(['600', '3', '12']);
    expect(h['Retry-After']).toBeUndefined();
  });

  it('adds Retry-After (at least 1 s) when a policy is exceeded, and prefers the exceeded one', () => {
    const h = rateLimitHeaders([
      state({ policy: 'preauth', limit: 120, remaining: 0, resetSeconds: 30 }),
      state({ policy: 'key', limit: 600, remaining: 0, resetSeconds: 42, exceeded: true }),
    ]);
    expect(h['Retry-After']).toBe('42');
    expect(h['RateLimit-Limit']).toBe('600');
    expect(rateLimitHeaders([state({ remaining: 0, resetSeconds: 0, exceeded: true })])['Retry-After']).toBe('1');
  });
});
