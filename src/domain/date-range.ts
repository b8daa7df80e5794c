import { AppError } from '../errors.ts';

/** A creation-time range from its ISO 8601 ends (either may be absent); `from` after `to` is 422 invalid_date_range. */
export function parseRange(range: { fromDate?: string; toDate?: string }): { from: Date | null; to: Date | null } {
  const from = range.fromDate ? new Date(range.fromDate) : null;
  const to = range.toDate ? new Date(range.toDate) : null;
  if (from && to && from > to) throw new AppError('invalid_date_range', 'fromDate: must not be after toDate.');
  return { from, to };
}
