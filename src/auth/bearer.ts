import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { baseUrlOf } from '../http/base-url.ts';
import type { AccessTokenVerifier } from '../oauth/access-tokens.ts';
import type { Principal } from '../registry/define-tool.ts';
import { parseKey } from './key-format.ts';
import type { KeyStore } from './key-store.ts';

/** Resolves the credential of `Authorization: Bearer <credential>`; null answers a 401. */
export type Authenticate = (credential: string, req: FastifyRequest) => Promise<Principal | null>;

/**
 * API keys are recognised by their format (prefix and checksum, no I/O); anything else is an OAuth access token
 * for this service. Both end as the same principal, so scope checks and audit treat them alike.
 */
export function bearerAuthenticator(keys: KeyStore, tokens: AccessTokenVerifier, config: Config): Authenticate {
  return async (credential, req) => (parseKey(credential) ? keys.authenticate(credential) : tokens.verify(credential, baseUrlOf(req, config)));
}
