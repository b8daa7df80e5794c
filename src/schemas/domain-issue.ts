import type { z } from 'zod';
import { PROBLEMS, type ProblemCode } from '../errors.ts';

// Rules checked while parsing that JSON Schema cannot state (a URL's host is public, section ids are unique, a
// cursor came from this service). Their issues name the problem code they are answered with, so an input that is
// valid under the published schema is never refused as 400 invalid_request.

/** The `params` of a zod refinement whose failure is answered with `problem`. */
export const answeredAs = (problem: ProblemCode) => ({ problem });

/** The problem code for a failed parse: the domain code when every issue carries one, else invalid_request. */
export function problemOfIssues(issues: readonly z.core.$ZodIssue[]): ProblemCode {
  const codes = issues.map((issue) => (issue.code === 'custom' ? (issue.params as { problem?: unknown } | undefined)?.problem : undefined));
  const first = codes[0];
  return typeof first === 'string' && Object.hasOwn(PROBLEMS, first) && codes.every((c) => c === first) ? (first as ProblemCode) : 'invalid_request';
}
