import { AppError } from '../errors.ts';

/** A creation-time range from its ISO 8601 ends (either may be absent); `from` after `to` is a 400. */
export function parseRange(range: { fromDate?: string; toDate?: string }): { from: Date | null; to: Date | null } {
  const from = range.fromDate ? new Date(range.fromDate) : null;
  const to = range.toDate ? new Date(range.toDate) : null;
  if (from && to && from > to) throw new AppError('invalid_request', 'fromDate: must not be after toDate.');
  return { from, to };
}
