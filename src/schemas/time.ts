import { z } from 'zod';

/** Output timestamps: ISO 8601 UTC ending in Z. */
export const timestamp = () => z.iso.datetime();
/** Input timestamps: ISO 8601 with Z or an offset. */
export const timestampInput = () => z.iso.datetime({ offset: true });

/** A creation-time filter; both ends inclusive (the order is checked by domain/date-range.ts). */
export const DateRange = {
  fromDate: timestampInput().optional().describe('Only orders created at or after this moment. Must not be after toDate (422 invalid_date_range).'),
  toDate: timestampInput().optional().describe('Only orders created at or before this moment. Must not be before fromDate (422 invalid_date_range).'),
};
