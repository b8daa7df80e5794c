import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** The exact member set of every error body (docs/errors.md): RFC 9457 fields + code/resolution + legacy ok/error. */
export const PROBLEM_KEYS = ['code', 'detail', 'error', 'instance', 'ok', 'resolution', 'status', 'title', 'type'];

export type ProblemBody = {
  type: string; title: string; status: number; detail: string; instance: string; code: string; resolution: string; ok: false; error: string;
};

/** Parses a problem response, asserting its status, code, media type and exact shape; returns the body. */
export function expectProblem(res: LightMyRequestResponse, status: number, code?: string): ProblemBody {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json(;|$)/);
  const body = res.json() as ProblemBody & Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(PROBLEM_KEYS);
  expect(body).toMatchObject({ ok: false, status });
  expect(body.error).toBe(body.detail);
  for (const k of ['type', 'title', 'detail', 'instance', 'code', 'resolution']) {
    expect(typeof body[k], k).toBe('string');
    expect((body[k] as string).length, k).toBeGreaterThan(0);
  }
  if (code) expect(body.code).toBe(code);
  if (code && code !== 'rate_limited') expect(body.type).toBe(`/problems/${code}`);
  expect(body.instance).toMatch(/#req-[0-9a-f]+$/);
  assertNothingInternal(res.body);
  return body;
}

/**
 * No stack trace, SQL, driver text or file path in a response body. `echoed`: what the caller sent, which an error
 * may quote back (a host that does not resolve, say "x.js"): a word of the body found in it is the caller's, not ours.
 */
export function assertNothingInternal(text: string, echoed: readonly string[] = []): void {
  const ours = text.replace(/[^\s"'\\]{3,}/g, (word) => (echoed.some((e) => e.includes(word.replace(/[.,;:]+$/, ''))) ? '' : word));
  expect(ours).not.toMatch(/\bat .+:\d+:\d+/); // stack frame
  expect(ours).not.toMatch(/\/(work|home|usr|tmp|src)\/|node_modules|\.ts\b|\.js\b/);
  expect(ours).not.toMatch(/\b(SELECT|INSERT INTO|UPDATE\s+"|DELETE FROM)\b/);
  expect(ours).not.toMatch(/prisma|DriverAdapter|ECONNREFUSED|ECONNRESET/i);
  // Case-sensitive: a Prisma error code (P2002 …) or an error class name; cuids may contain "p2001" in lower case.
  expect(ours).not.toMatch(/\bP\d{4}\b|\b\w*Error\b:|\bpg_[a-z_]+\(|\binvocation\b/);
}

/** The confirm values that are not the literal true: each is 422 confirmation_required (docs/agent-safety.md). */
export const NOT_CONFIRMED: readonly [string, Record<string, unknown>][] = [
  ['missing', {}],
  ['"true"', { confirm: 'true' }],
  ['1', { confirm: 1 }],
  ['false', { confirm: false }],
  ['null', { confirm: null }],
];
