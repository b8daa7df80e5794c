import type { FastifyBaseLogger } from 'fastify';
import type * as OidcProvider from 'oidc-provider';

export type OidcProviderModule = typeof OidcProvider;

let loaded: Promise<OidcProviderModule> | undefined;

/**
 * oidc-provider, imported on first use. On import it prints a notice with console.warn when the runtime is older
 * than it prefers (Node 20: it works, see docs/oauth.md); the service's output is structured logs, so the notice is
 * caught and logged as one warning instead, and a service that never sees an OAuth request never loads the library.
 */
export function loadOidcProvider(log: FastifyBaseLogger): Promise<OidcProviderModule> {
  return (loaded ??= (async () => {
    const original = console.warn;
    const notices: string[] = [];
    console.warn = (...args: unknown[]) => void notices.push(args.map(String).join(' '));
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = original;
      for (const notice of notices) log.warn(notice);
    }
  })());
}
