import { randomUUID } from 'node:crypto';

/**
 * Ids for rows inserted with hand-written SQL, shaped like the `cuid()` ids Prisma generates for the same tables
 * (25 characters: "c", milliseconds since the epoch and a per-process counter in base 36, then 12 random
 * characters), so they sort by creation time as Prisma's do: cart lines are listed by id, and (at, id) orders the
 * audit log. randomUUID draws from Node's cached entropy, not one system call per id.
 */
let counter = 0;

export function newId(): string {
  counter = (counter + 1) % 36 ** 4;
  const time = Date.now().toString(36).padStart(8, '0');
  const count = counter.toString(36).padStart(4, '0');
  return `c${time}${count}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}
