import { plainJson } from '../domain/json-snapshot.ts';
import { Prisma } from '../generated/prisma/client.ts';

/** A value for a nullable Json column: SQL NULL for null/undefined, plain JSON otherwise. */
export function toJsonValue(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null || value === undefined ? Prisma.DbNull : (plainJson(value) as Prisma.InputJsonValue);
}
