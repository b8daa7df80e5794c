import { PROBLEMS, type ProblemCode } from '../errors.ts';
import type { Tool } from './define-tool.ts';

/**
 * What any tool call can meet before or around its handler: body, validation (invalid_text: a text field holding
 * what PostgreSQL cannot store), auth, limits, server faults.
 */
export const COMMON_PROBLEMS: readonly ProblemCode[] = [
  'invalid_json', 'invalid_body', 'invalid_request', 'invalid_text', 'unauthorized', 'insufficient_scope', 'payload_too_large',
  'unsupported_media_type', 'rate_limited', 'internal_error', 'service_unavailable',
];

/** What every write can meet through its Idempotency-Key. */
export const WRITE_PROBLEMS: readonly ProblemCode[] = ['invalid_idempotency_key', 'idempotency_in_progress', 'idempotency_key_reused'];

/** The statuses every operation declares, whether or not the tool has a code of its own with that status. */
export const ALWAYS_DECLARED_STATUSES: readonly number[] = [400, 401, 403, 413, 415, 422, 429, 500, 503];

/** Every problem code the tool can answer with: the common ones, the write and confirm ones, and its own. */
export function problemCodesOf(tool: Tool): ReadonlySet<ProblemCode> {
  return new Set([
    ...COMMON_PROBLEMS,
    ...(tool.write ? WRITE_PROBLEMS : []),
    ...(tool.requiresConfirm ? (['confirmation_required'] as const) : []),
    ...tool.errors,
  ]);
}

/** The tool's problem codes grouped by HTTP status, in status order; the always-declared statuses are present even when empty. */
export function problemCodesByStatus(tool: Tool): Map<number, ProblemCode[]> {
  const codes = problemCodesOf(tool);
  const byStatus = new Map<number, ProblemCode[]>(ALWAYS_DECLARED_STATUSES.map((s) => [s, []]));
  for (const code of Object.keys(PROBLEMS) as ProblemCode[]) {
    if (!codes.has(code)) continue;
    const status = PROBLEMS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
