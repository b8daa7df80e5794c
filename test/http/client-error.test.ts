// Requests Node's HTTP parser refuses never reach a route: Fastify's clientErrorHandler answers them
// (src/http/client-error.ts). Sent over a raw TCP socket, since no HTTP client would send these bytes: the answer
// is the service's problem+json 400 with a request id, and the connection is closed.
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/errors.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { PROBLEM_KEYS } from '../helpers/problem.ts';

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t?.close());

/** Writes `bytes` on a fresh connection; resolves with everything received once the server closes it. */
function exchange(bytes: string): Promise<{ head: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => reject(new Error('the server did not close the connection')));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({ head: text.slice(0, split).split('\r\n'), body: text.slice(split + 4) });
    });
  });
}

const header = (head: string[], name: string) => head.find((l) => l.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();

describe('a request the HTTP parser refuses', () => {
  it.each([
    ['a control character in a header value', 'POST /api/v1/tools/products.search HTTP/1.1\r\nHost: x\r\nX-Note: a\u0001b\r\n\r\n', '/api/v1/tools/products.search', 'not allowed'],
    ['a space in a header name', 'GET /health HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n', '/health', 'not allowed'],
    ['headers over 16 KB', `GET /openapi.json HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, '/openapi.json', 'exceed 16 KB'],
    ['a malformed request line', 'GARBAGE\r\n\r\n', '/', 'not well-formed HTTP'],
  ])('%s → problem+json 400 with a request id, then the connection closes', async (_name, bytes, path, says) => {
    const { head, body } = await exchange(bytes);
    expect(head[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(header(head, 'content-type')).toBe('application/problem+json; charset=utf-8');
    expect(header(head, 'connection')).toBe('close');
    const id = header(head, 'x-request-id');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const problem = JSON.parse(body) as Record<string, unknown>;
    expect(Object.keys(problem).sort()).toEqual(PROBLEM_KEYS);
    expect(problem).toMatchObject({ type: '/problems/invalid_request', status: 400, code: 'invalid_request', title: PROBLEMS.invalid_request.title, instance: `${path}#req-${id}` });
    expect(problem.detail).toContain(says);
    expect(Number(header(head, 'content-length'))).toBe(Buffer.byteLength(body));
  });

  it('leaves the next connection served as usual', async () => {
    await exchange('GARBAGE\r\n\r\n');
    const { head } = await exchange('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(head[0]).toBe('HTTP/1.1 200 OK');
  });
});
