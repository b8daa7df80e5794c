import { AppError } from '../errors.ts';
import type { Scope } from '../schemas/scopes.ts';

// The scope list lives with the field schemas, so the event catalogue (src/events) can name the scopes its families
// expose without importing the registry.
export { isScope, SCOPES, ScopeSchema, type Scope } from '../schemas/scopes.ts';

/**
 * 403 insufficient_scope, with the challenge naming every scope the call needs (RFC 6750 §3.1). A caller signed in
 * through OAuth (`viaOAuth`) is told to ask for the scope, not to use another key (docs/errors.md).
 */
export function insufficientScope(needed: readonly Scope[], detail: string, viaOAuth = false): AppError {
  return new AppError(
    'insufficient_scope',
    detail,
    { 'WWW-Authenticate': `Bearer realm="agent-api", error="insufficient_scope", scope="${needed.join(' ')}"` },
    viaOAuth ? oauthScopeAdvice(needed) : undefined,
  );
}

/** What an OAuth client does about a missing scope: request it, so the shop's operator can approve it. */
export const oauthScopeAdvice = (needed: readonly string[]) =>
  `Sign in again requesting the scope ${needed.join(' ')} (an MCP host does this step-up itself); the shop's operator approves it on the consent page.`;
