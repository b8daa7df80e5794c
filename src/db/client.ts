import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => …)`. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export type DbOptions = { connectionString: string; poolMax?: number; onQuery?: () => void };

export function createDb({ connectionString, poolMax = 10, onQuery }: DbOptions): Db {
  const adapter = new PrismaPg({
    connectionString,
    max: poolMax,
    // Fail fast when the database is unreachable so callers get a 503 instead of hanging.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  const db = new PrismaClient({ adapter, log: onQuery ? [{ emit: 'event', level: 'query' }] : [] });
  if (onQuery) db.$on('query' as never, onQuery);
  return db;
}
