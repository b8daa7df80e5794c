import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { keysVersion, loadKeys, type AuthorizationServerKeys } from './keys.ts';
import { loadOidcProvider } from './library.ts';
import { createProvider } from './provider.ts';
import { issuerOf } from './resources.ts';

/** How often an instance looks for keys rotated elsewhere (the CLI, another instance). */
const KEY_CHECK_MS = 60_000;
/**
 * Without PUBLIC_BASE_URL each origin (Host, or a trusted proxy's forwarded host) gets its own issuer. At most this
 * many are kept, the least recently used going first, so a stream of made-up Host headers costs one rebuild each
 * and never grows memory.
 */
export const MAX_ISSUERS = 16;

type Entry = { provider: Provider; handle: (req: IncomingMessage, res: ServerResponse) => void };

/**
 * The built-in authorization server of this instance: one oidc-provider per issuer, all on the same database
 * and keys. Keys are read from the database (generated the first time) and re-read when a rotation happened.
 */
export class AuthorizationServer {
  private keys: AuthorizationServerKeys | undefined;
  private keysCheckedAt = 0;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly deps: { db: Db; config: Config; log: FastifyBaseLogger; fetch: typeof fetch; secrets: SecretBox }) {}

  async providerFor(baseUrl: string): Promise<Provider> {
    return (await this.entryFor(baseUrl)).provider;
  }

  /** The library's own request handler for `baseUrl`'s issuer (a Koa app). */
  async handlerFor(baseUrl: string): Promise<Entry['handle']> {
    return (await this.entryFor(baseUrl)).handle;
  }

  private async entryFor(baseUrl: string): Promise<Entry> {
    const keys = await this.currentKeys();
    let entry = this.entries.get(baseUrl);
    if (entry) {
      // A Map iterates in insertion order: re-inserting makes this the most recently used.
      this.entries.delete(baseUrl);
    } else {
      const library = await loadOidcProvider(this.deps.log);
      const provider = createProvider(library, issuerOf(baseUrl), baseUrl, { ...this.deps, keys });
      entry = { provider, handle: provider.callback() };
      const oldest = this.entries.keys().next();
      if (this.entries.size >= MAX_ISSUERS && !oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(baseUrl, entry);
    return entry;
  }

  private async currentKeys(): Promise<AuthorizationServerKeys> {
    const now = Date.now();
    if (this.keys && now - this.keysCheckedAt < KEY_CHECK_MS) return this.keys;
    if (!this.keys || (await keysVersion(this.deps.db)) !== this.keys.version) {
      this.keys = await loadKeys(this.deps.db, this.deps.secrets);
      this.entries.clear();
    }
    this.keysCheckedAt = now;
    return this.keys;
  }
}
