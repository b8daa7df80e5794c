import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.ts';
import { sqlTransaction } from '../db/sql.ts';
import { endGrants } from './grant-admin.ts';

/** A registered client neither used to start an authorization nor given a token for this long is removed. */
export const CLIENT_IDLE_MS = 7 * 24 * 60 * 60_000;
/** A client's lastUsedAt is written at most this often: it only has to be right to within the 7 days. */
const TOUCH_EVERY_MS = 60 * 60_000;
/** How often each instance sweeps; every instance does, and a sweep that finds nothing costs two indexed statements. */
const SWEEP_EVERY_MS = 10 * 60_000;
const FIRST_SWEEP_AFTER_MS = 30_000;

const CLIENT_PREFIX = 'Client:';

/** Records a use of a registered client (an authorization started, a token issued); best effort. */
export async function touchClient(db: Db, clientId: string, now = new Date()): Promise<void> {
  await db.oAuthRecord.updateMany({
    where: { id: `${CLIENT_PREFIX}${clientId}`, lastUsedAt: { lt: new Date(now.getTime() - TOUCH_EVERY_MS) } },
    data: { lastUsedAt: now },
  });
}

/**
 * Deletes the authorization server's expired records and the registered clients unused for CLIENT_IDLE_MS, ending
 * (and auditing) the grants those clients still held, in the transaction that removes them.
 */
export async function sweepOAuthRecords(db: Db, now = new Date()): Promise<{ expired: number; clients: number; grantsEnded: number }> {
  const { count: expired } = await db.oAuthRecord.deleteMany({ where: { expiresAt: { lt: now } } });
  const cutoff = new Date(now.getTime() - CLIENT_IDLE_MS);
  return sqlTransaction(db, async (tx) => {
    const { rows: removed } = await tx.query<{ id: string }>(`DELETE FROM "OAuthRecord" WHERE id LIKE $1 AND "lastUsedAt" < $2 RETURNING id`, [
      `${CLIENT_PREFIX}%`,
      cutoff,
    ]);
    const clientIds = removed.map((r) => r.id.slice(CLIENT_PREFIX.length));
    const grantsEnded = clientIds.length === 0 ? 0 : await endGrants(tx, { clientIds }, `its client was not used for ${CLIENT_IDLE_MS / 86_400_000} days and was removed`);
    return { expired, clients: clientIds.length, grantsEnded };
  });
}

/** Runs the sweep on every instance that serves the built-in authorization server, until stopped. */
export function startOAuthHousekeeping(deps: { db: Db; log: FastifyBaseLogger }): { stop: () => void } {
  const run = () => {
    sweepOAuthRecords(deps.db)
      .then(({ clients, grantsEnded }) => {
        if (clients > 0) deps.log.info({ clients, grantsEnded }, 'removed OAuth clients unused for 7 days');
      })
      .catch((err: unknown) => deps.log.warn({ err }, 'OAuth housekeeping failed; it runs again later'));
  };
  const first = setTimeout(run, FIRST_SWEEP_AFTER_MS);
  const every = setInterval(run, SWEEP_EVERY_MS);
  first.unref();
  every.unref();
  return {
    stop: () => {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
