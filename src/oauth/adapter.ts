import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/**
 * Models whose id is a bearer secret (the token or code itself). They are stored under the SHA-256 of the id and
 * without the id in the payload, like API keys: a copy of the database holds no usable token. They are only ever
 * looked up by id, which brings the id back.
 */
const SECRET_ID_MODELS = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode', 'ClientCredentials', 'RegistrationAccessToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/** Expired rows are swept at most this often per process; reads ignore them before that anyway. */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * oidc-provider's storage on our PostgreSQL, so every instance sees the same sessions, codes, tokens and
 * dynamically registered clients. One table for all models: rows are `<model>:<id>` with the library's payload as
 * JSON, plus the columns it looks things up by (grant, session uid, user code) and the expiry.
 */
export function createAdapterFactory(db: Db): (model: string) => Adapter {
  let lastSweep = 0;
  const sweep = () => {
    const now = Date.now();
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    db.oAuthRecord.deleteMany({ where: { expiresAt: { lt: new Date(now) } } }).catch(() => {});
  };
  return (model) => new PrismaAdapter(db, model, sweep);
}

class PrismaAdapter implements Adapter {
  private readonly secretIds: boolean;

  constructor(
    private readonly db: Db,
    private readonly model: string,
    private readonly sweep: () => void,
  ) {
    this.secretIds = SECRET_ID_MODELS.has(model);
  }

  private key(id: string): string {
    return `${this.model}:${this.secretIds ? createHash('sha256').update(id).digest('base64url') : id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const stored = this.secretIds ? { ...payload, jti: undefined } : payload;
    const data = {
      payload: JSON.parse(JSON.stringify(stored)) as Prisma.InputJsonObject,
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expiresAt: typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000) : null,
    };
    await this.db.oAuthRecord.upsert({ where: { id: this.key(id) }, create: { id: this.key(id), ...data }, update: { ...data, consumedAt: null } });
    this.sweep();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = await this.first({ id: this.key(id) });
    return payload && this.secretIds ? { ...payload, jti: id } : payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.first({ id: { startsWith: `${this.model}:` }, uid });
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.first({ id: { startsWith: `${this.model}:` }, userCode });
  }

  async consume(id: string): Promise<void> {
    await this.db.oAuthRecord.updateMany({ where: { id: this.key(id) }, data: { consumedAt: new Date() } });
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
