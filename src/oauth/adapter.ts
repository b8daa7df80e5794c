import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { grantInForce, markGrantRevoked } from './grant-admin.ts';
import type { OidcProviderModule } from './library.ts';

/**
 * Models whose id is a bearer secret: the token or code itself, or the browser's session cookie. They are stored
 * under the SHA-256 of the id (base64url, as migration 20261129160000_session_ids_hashed computes it in SQL) and
 * without the id in the payload, like API keys: a copy of the database holds no usable token or session. A lookup
 * by id brings the id back. The one other lookup, a session by its uid, only reads the session, never saves it.
 */
const SECRET_ID_MODELS = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'ClientCredentials',
  'RegistrationAccessToken',
  'InitialAccessToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'Session',
]);

/** A registered client's metadata, as stored, is at most this many bytes of JSON (docs/oauth.md). */
export const CLIENT_METADATA_MAX_BYTES = 8 * 1024;

type AdapterDeps = { db: Db; errors: OidcProviderModule['errors'] };

/**
 * oidc-provider's storage on our PostgreSQL, so every instance sees the same sessions, codes, tokens and
 * dynamically registered clients. One table for all models: rows are `<model>:<id>` with the library's payload as
 * JSON, plus the columns it looks things up by (grant, session uid, user code) and the expiry. Expired rows are
 * ignored by reads and deleted by the housekeeping job (src/oauth/housekeeping.ts).
 */
export function createAdapterFactory(deps: AdapterDeps): (model: string) => Adapter {
  return (model) => new PrismaAdapter(deps, model);
}

class PrismaAdapter implements Adapter {
  private readonly db: Db;
  private readonly secretIds: boolean;

  constructor(
    private readonly deps: AdapterDeps,
    private readonly model: string,
  ) {
    this.db = deps.db;
    this.secretIds = SECRET_ID_MODELS.has(model);
  }

  private key(id: string): string {
    return `${this.model}:${this.secretIds ? createHash('sha256').update(id).digest('base64url') : id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const json = JSON.stringify(this.stored(payload));
    if (this.model === 'Client' && Buffer.byteLength(json) > CLIENT_METADATA_MAX_BYTES) {
      throw new this.deps.errors.InvalidClientMetadata(`client metadata is limited to ${CLIENT_METADATA_MAX_BYTES} bytes of JSON`);
    }
    const data = {
      payload: JSON.parse(json) as Prisma.InputJsonObject,
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expiresAt: typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000) : null,
    };
    const create = { id: this.key(id), ...data, lastUsedAt: this.model === 'Client' ? new Date() : null };
    await this.db.oAuthRecord.upsert({ where: { id: this.key(id) }, create, update: { ...data, consumedAt: null } });
  }

  /** What a row keeps of the library's payload: never a bearer secret. */
  private stored(payload: AdapterPayload): AdapterPayload {
    if (this.secretIds) return { ...payload, jti: undefined };
    // An interaction copies its browser session's id (the session cookie's value); the library never reads it back.
    if (this.model === 'Interaction' && payload.session) return { ...payload, session: { ...payload.session, cookie: undefined } };
    return payload;
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    // A grant whose record outlived its end (revoked, or its approving key revoked, rotated or expired) is no grant:
    // a refresh or code exchange under it fails as "grant not found".
    if (this.model === 'Grant' && !(await grantInForce(this.db, id))) return undefined;
    const payload = await this.first({ id: this.key(id) });
    return payload && this.secretIds ? { ...payload, jti: id } : payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.first({ id: { startsWith: `${this.model}:` }, uid });
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.first({ id: { startsWith: `${this.model}:` }, userCode });
  }

  /**
   * Marks a code or refresh token used, once. The library checks `consumed` on the token it found and then consumes
   * it, so concurrent requests with one token all pass that check; the conditional update lets exactly one of them
   * through. The others are reuse, as a later sequential reuse is: the grant ends and they get invalid_grant.
   */
  async consume(id: string): Promise<void> {
    const key = this.key(id);
    const { count } = await this.db.oAuthRecord.updateMany({ where: { id: key, consumedAt: null }, data: { consumedAt: new Date() } });
    if (count === 1) return;
    const label = this.model.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
    const grantId = (await this.db.oAuthRecord.findUnique({ where: { id: key }, select: { grantId: true } }))?.grantId;
    if (grantId) await markGrantRevoked(this.db, grantId, `its ${label} was used twice`);
    throw new this.deps.errors.InvalidGrant(`${label} already used`);
  }

  async destroy(id: string): Promise<void> {
    await this.db.oAuthRecord.deleteMany({ where: { id: this.key(id) } });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.oAuthRecord.deleteMany({ where: { grantId, id: { startsWith: `${this.model}:` } } });
  }

  private async first(where: Prisma.OAuthRecordWhereInput): Promise<AdapterPayload | undefined> {
    const row = await this.db.oAuthRecord.findFirst({ where: { ...where, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] } });
    if (!row) return undefined;
    const payload = row.payload as AdapterPayload;
    // The library reads `consumed` (epoch seconds) to detect a code or refresh token used twice.
    return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
  }
}
