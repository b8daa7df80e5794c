// ACP's flat Error object (docs/agentic-checkout.md, "ACP"): {type, code, message, param?}. The service's own
// problems are translated here, so every ACP answer that is not a session has this one shape.
import { AppError, toProblem } from '../../errors.ts';

export type AcpErrorType = 'invalid_request' | 'processing_error' | 'service_unavailable';
export type AcpErrorBody = { type: AcpErrorType; code: string; message: string; param?: string; supported_versions?: string[] };

/** An answer the ACP binding gives in the protocol's words (before any tool runs: headers, body shape, payment). */
export class AcpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly extra: { supported_versions?: string[] } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AcpError';
  }
}

/** The service's problem codes that ACP names otherwise, with the status the protocol gives them. */
const RENAMED: Record<string, { status?: number; code: string }> = {
  idempotency_key_reused: { status: 422, code: 'idempotency_conflict' },
  idempotency_in_progress: { status: 409, code: 'idempotency_in_flight' },
  invalid_idempotency_key: { code: 'invalid_idempotency_key' },
};

const typeOf = (status: number): AcpErrorType => (status === 503 ? 'service_unavailable' : status >= 500 ? 'processing_error' : 'invalid_request');

/** Any failure as status, headers and ACP Error body. */
export function acpErrorOf(err: unknown, instance: string): { status: number; headers: Record<string, string>; body: AcpErrorBody } {
  if (err instanceof AcpError) {
    return { status: err.status, headers: err.headers, body: { type: typeOf(err.status), code: err.code, message: err.message, ...(err.param ? { param: err.param } : {}), ...err.extra } };
  }
  const problem = toProblem(err, instance);
  const renamed = RENAMED[problem.code];
  const status = renamed?.status ?? problem.status;
  const headers: Record<string, string> = { ...(err instanceof AppError ? err.headers : {}) };
  if (renamed?.code === 'idempotency_in_flight') headers['Retry-After'] ??= '1';
  return { status, headers, body: { type: typeOf(status), code: renamed?.code ?? problem.code, message: problem.detail } };
}
