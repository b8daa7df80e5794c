import { z } from 'zod';
import { answeredAs } from './domain-issue.ts';

/**
 * A page cursor: the last item's (time, id), so pages stay stable while new items arrive. `listedBy` names the tool
 * that hands it out, for the error message.
 */
export const pageCursor = (listedBy: string) =>
  z
    .string()
    .max(200)
    .transform((raw, ctx) => {
      const decoded = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
      if (!decoded) {
        ctx.addIssue({ code: 'custom', message: `is not a cursor returned by ${listedBy}`, params: answeredAs('invalid_cursor') });
        return z.NEVER;
      }
      return { at: new Date(Number(decoded[1])), id: decoded[2] };
    });

export const encodeCursor = (at: Date, id: string) => Buffer.from(`${at.getTime()}.${id}`).toString('base64url');
