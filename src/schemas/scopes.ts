import { z } from 'zod';

/** The 21 scopes (docs/agent-surfaces.md; checkout:agent: docs/agentic-checkout.md). A key never gets more access than the scopes its owner assigned. */
export const SCOPES = [
  'analytics:read', 'audit:read', 'audit:revert', 'cart:write', 'catalog:read', 'checkout:agent', 'categories:read', 'categories:write',
  'customer:read', 'discounts:read', 'discounts:write', 'features:read', 'features:write', 'marketing:write',
  'orders:read', 'orders:write', 'pages:read', 'pages:write', 'products:write', 'settings:read', 'settings:write',
] as const;

export const ScopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof ScopeSchema>;

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
