import http from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { AppError, toProblem } from '../errors.ts';
import { PROBLEM_CONTENT_TYPE } from './problem.ts';
import { newRequestId } from './request-id.ts';

const RESOLUTION =
  'Send a well-formed HTTP/1.1 request: a valid request line, header values without control characters, and all headers together under 16 KB.';

/** Why Node's parser stopped, in words a client can act on; the parser's own message names its internals. */
function reasonOf(code: string): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'The request headers exceed 16 KB.';
    case 'HPE_INVALID_HEADER_TOKEN':
      return 'A request header holds a character that is not allowed (a control character in a name or value).';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'The request was not received completely in time.';
    default:
      return 'The request is not well-formed HTTP (request line, headers or framing).';
  }
}

/** The path of the request line, when the parser got that far and it is a plain path; else `/`. */
function pathOf(err: ConnectionError): string {
  const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : Buffer.alloc(0);
  return /^[A-Z]{3,10} (\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*)[? ]/.exec(raw.subarray(0, 2048).toString('latin1'))?.[1] ?? '/';
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (a control character in a header, headers
 * over the size limit, a malformed request line) never reaches a route, so it is answered here, in the service's
 * problem+json shape with a request id like every other error, and the connection is closed (the parser cannot
 * resynchronise on it). The raw packet is never logged: it may hold an Authorization header.
 */
export function answerClientError(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const id = newRequestId();
  this.log.info({ reqId: id, code: err.code, remoteAddress: socket.remoteAddress }, 'request refused by the HTTP parser');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const problem = JSON.stringify(toProblem(new AppError('invalid_request', reasonOf(err.code), {}, RESOLUTION), `${pathOf(err)}#req-${id}`));
  const head = [
    `HTTP/1.1 400 ${http.STATUS_CODES[400]}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(problem)}`,
    `X-Request-Id: ${id}`,
    'Cache-Control: no-store',
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${problem}`, () => socket.destroy());
}
