import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, classifyUnknown, toProblem } from '../errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** Fastify's own errors (body parsing, limits) mapped onto our problem codes. */
export function fromFastifyError(err: FastifyError): AppError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Tool calls take Content-Type: application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_body', 'The body is empty; send a JSON object ({} when the tool takes no fields).');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body exceeds the size limit.');
    // Fastify reports a "__proto__" / "constructor.prototype" key (refused by secure-json-parse) with this same code.
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_json', 'The body is not valid JSON, or it holds a forbidden "__proto__" or "constructor.prototype" key.');
  }
  if (err.statusCode === 415) return new AppError('unsupported_media_type', 'Tool calls take Content-Type: application/json.');
  if (err.statusCode === 413) return new AppError('payload_too_large', 'The request body exceeds the size limit.');
  return null;
}

export function problemInstance(req: FastifyRequest): string {
  return `${req.url.split('?')[0]}#req-${req.id}`;
}

export function sendProblem(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const appError = err instanceof AppError ? err : (fromFastifyError(err as FastifyError) ?? classifyUnknown(err));
  if (appError.status >= 500) req.log.error({ err }, 'request failed');
  const problem = toProblem(appError, problemInstance(req));
  return reply.code(problem.status).headers(appError.headers).type(PROBLEM_CONTENT_TYPE).send(problem);
}
