import type { z } from 'zod';
import { PROBLEMS, type ProblemCode } from '../errors.ts';

// Rules checked while parsing that JSON Schema cannot state (a URL's host is public, section ids are unique, a
// cursor came from this service). Their issues name the problem code they are answered with, so an input that is
// valid under the published schema is never refused as 400 invalid_request.

/** The `params` of a zod refinement whose failure is answered with `problem`. */
export const answeredAs = (problem: ProblemCode) => ({ problem });

/**
 * The problem code for a failed parse: when every issue carries a domain code, the first one's (detail lists them
 * all); else invalid_request, since the input breaks the published schema too.
 */
export function problemOfIssues(issues: readonly z.core.$ZodIssue[]): ProblemCode {
  const codes = issues.map((issue) => (issue.code === 'custom' ? (issue.params as { problem?: unknown } | undefined)?.problem : undefined));
  const domain = codes.filter((c): c is ProblemCode => typeof c === 'string' && Object.hasOwn(PROBLEMS, c));
  return domain.length > 0 && domain.length === codes.length ? domain[0] : 'invalid_request';
}
