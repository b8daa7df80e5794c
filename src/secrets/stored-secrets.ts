// Every column that holds a secret, sealed with the SecretBox: the start-up check (and sealing of rows written before
// secrets were encrypted) and `secrets reencrypt` after a SECRETS_KEY rotation. The readers and writers of each
// column (src/oauth/keys.ts, src/services/webhooks.ts, src/events/delivery-worker.ts, src/mcp/state-secret.ts) seal
// and open with the contexts below.
import { sqlOf, type SqlSource } from '../db/sql.ts';
import { SetupError } from '../setup-error.ts';
import { isSealed, sealedKid, SecretBoxError, type SecretBox } from './secret-box.ts';

/** The context a value is sealed under: the row it belongs to, so that a value copied into another row does not open. */
export const sealedIn = {
  oauthKey: (id: string) => `oauth-key:${id}`,
  webhookEndpoint: (id: string) => `webhook-endpoint:${id}`,
  serverSecret: (name: string) => `server-secret:${name}`,
} as const;

type Place = {
  /** What the column holds, as the CLI reports it. */
  name: string;
  table: string;
  /** The primary key column. */
  key: string;
  column: string;
  context: (key: string) => string;
  /** A jsonb column: a sealed value is a JSON string; before sealing it held the JSON document itself. */
  json?: true;
};

const PLACES: readonly Place[] = [
  { name: 'OAuth signing keys and cookie secrets', table: 'OAuthKey', key: 'id', column: 'material', context: sealedIn.oauthKey, json: true },
  { name: 'webhook signing secrets', table: 'WebhookEndpoint', key: 'id', column: 'secret', context: sealedIn.webhookEndpoint },
  { name: 'previous webhook signing secrets', table: 'WebhookEndpoint', key: 'id', column: 'previousSecret', context: sealedIn.webhookEndpoint },
  { name: 'server secrets', table: 'ServerSecret', key: 'name', column: 'value', context: sealedIn.serverSecret },
];

/** A name from PLACES (never input) as an SQL identifier. */
const quoted = (name: string) => `"${name}"`;

/** The column's value as text: a jsonb string unquoted, any other jsonb value as its JSON text. */
function valueOf(place: Place): string {
  const column = quoted(place.column);
  return place.json ? `CASE WHEN jsonb_typeof(${column}) = 'string' THEN ${column} #>> '{}' ELSE ${column}::text END` : column;
}

type Row = { key: string; value: string };

async function rowsOf(db: SqlSource, place: Place): Promise<Row[]> {
  const { rows } = await sqlOf(db).query<Row>(
    `SELECT ${quoted(place.key)} AS key, ${valueOf(place)} AS value FROM ${quoted(place.table)} WHERE ${quoted(place.column)} IS NOT NULL`,
  );
  return rows;
}

/** Replaces the value only if it is still the one read: a row changed meanwhile (a rotation) is left as it now is. */
async function replace(db: SqlSource, place: Place, row: Row, sealed: string): Promise<boolean> {
  const assigned = place.json ? 'to_jsonb($1::text)' : '$1';
  const { rowCount } = await sqlOf(db).query(
    `UPDATE ${quoted(place.table)} SET ${quoted(place.column)} = ${assigned} WHERE ${quoted(place.key)} = $2 AND ${valueOf(place)} = $3`,
    [sealed, row.key, row.value],
  );
  return rowCount === 1;
}

export type PlaceCount = {
  name: string;
  /** Values found. */
  stored: number;
  /** Sealed again (under the current key) by this run. */
  sealed: number;
  /** Changed by someone else between reading and sealing (a rotation): left as they now are. */
  changedMeanwhile: number;
};

/**
 * Checks that every sealed value opens with this box (a wrong SECRETS_KEY stops here, before anything is written),
 * then seals again what `which` selects: at start-up the values stored in plaintext by a release before secrets were
 * encrypted; in `secrets reencrypt` also those sealed under SECRETS_KEY_PREVIOUS. Each value is replaced only if it is
 * still the one read, so two instances starting at once, or a rotation meanwhile, lose nothing.
 */
export async function sealStoredSecrets(db: SqlSource, box: SecretBox, which: 'plaintext' | 'stale'): Promise<PlaceCount[]> {
  const found = await Promise.all(PLACES.map(async (place) => ({ place, rows: await rowsOf(db, place) })));
  checkOpen(box, found);
  const counts: PlaceCount[] = [];
  for (const { place, rows } of found) {
    const count: PlaceCount = { name: place.name, stored: rows.length, sealed: 0, changedMeanwhile: 0 };
    for (const row of rows) {
      if (which === 'plaintext' ? isSealed(row.value) : !box.isStale(row.value)) continue;
      const context = place.context(row.key);
      const plaintext = isSealed(row.value) ? box.open(row.value, context) : row.value;
      if (await replace(db, place, row, box.seal(plaintext, context))) count.sealed++;
      else count.changedMeanwhile++;
    }
    counts.push(count);
  }
  return counts;
}

function checkOpen(box: SecretBox, found: ReadonlyArray<{ place: Place; rows: Row[] }>): void {
  const sealed = found.flatMap(({ place, rows }) => rows.filter((r) => isSealed(r.value)).map((r) => ({ value: r.value, context: place.context(r.key) })));
  const failed = sealed.filter(({ value, context }) => {
    try {
      box.open(value, context);
      return false;
    } catch (err) {
      if (err instanceof SecretBoxError) return true;
      throw err;
    }
  });
  if (failed.length === 0) return;
  const kids = [...new Set(failed.map((f) => sealedKid(f.value)))].join(', ');
  throw new SetupError(
    `${box.source} does not open ${failed.length} of the ${sealed.length} secrets sealed in the database (sealed under key id ${kids}; it is key id ${box.kid}): ` +
      'use the key they were sealed with, or give that key as SECRETS_KEY_PREVIOUS while rotating (docs/operator.md, "Secrets").',
  );
}
