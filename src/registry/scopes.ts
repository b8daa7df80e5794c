import { AppError } from '../errors.ts';
import type { Scope } from '../schemas/scopes.ts';

// The scope list lives with the field schemas, so the event catalogue (src/events) can name the scopes its families
// expose without importing the registry.
export { isScope, SCOPES, ScopeSchema, type Scope } from '../schemas/scopes.ts';

/** 403 insufficient_scope, with the challenge naming every scope the call needs (RFC 6750 §3.1). */
export function insufficientScope(needed: readonly Scope[], detail: string): AppError {
  return new AppError('insufficient_scope', detail, {
    'WWW-Authenticate': `Bearer realm="agent-api", error="insufficient_scope", scope="${needed.join(' ')}"`,
  });
}
