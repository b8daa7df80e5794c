import type { Tool } from '../registry/define-tool.ts';
import { analyticsTools } from './analytics.ts';
import { auditTools } from './audit.ts';
import { cartTools } from './cart.ts';
import { categoryTools } from './categories.ts';
import { customerTools } from './customers.ts';
import { discountTools } from './discounts.ts';
import { featureTools } from './features.ts';
import { imageTools } from './images.ts';
import { orderTools } from './orders.ts';
import { pageTools } from './pages.ts';
import { productTools } from './products.ts';
import { serviceTools } from './services.ts';
import { settingsTools } from './settings.ts';
import { shippingTools } from './shipping.ts';
import { siteTools } from './site.ts';
import { ucpRestTools, ucpTools } from './ucp.ts';
import { variantTools } from './variants.ts';
import { webhookTools } from './webhooks.ts';

const domainTools: readonly Tool[] = [
  ...productTools, ...variantTools, ...categoryTools, ...pageTools, ...serviceTools, ...siteTools, ...orderTools, ...discountTools, ...cartTools,
  ...customerTools, ...analyticsTools, ...imageTools, ...settingsTools, ...shippingTools, ...featureTools, ...webhookTools,
];

/**
 * Every tool of the service, in the order they are published. Adding a tool = declaring it in its domain file
 * (a new domain file is added to the list above once). The audit tools are built from the others' declarations.
 */
export const TOOLS: readonly Tool[] = Object.freeze([...domainTools, ...auditTools(domainTools)]);

const names = new Set<string>();
for (const tool of TOOLS) {
  if (names.has(tool.name)) throw new Error(`Duplicate tool name ${tool.name}`);
  names.add(tool.name);
}

/**
 * The checkout protocols' tools (UCP's MCP binding, docs/agentic-checkout.md): served on /api/mcp to keys with
 * checkout:agent and behind the protocols' own REST routes, but not part of TOOLS (no /api/v1/tools route, not in the
 * service's OpenAPI tool list): their names and shapes are the protocol's, not this service's.
 */
export const PROTOCOL_TOOLS: readonly Tool[] = Object.freeze([...ucpTools]);
/** Operations only UCP's REST routes serve (UCP's MCP binding has no such tool): recording events on an order. */
export const UCP_REST_TOOLS: readonly Tool[] = Object.freeze([...ucpRestTools]);
for (const tool of [...PROTOCOL_TOOLS, ...UCP_REST_TOOLS]) {
  if (names.has(tool.name)) throw new Error(`Duplicate tool name ${tool.name}`);
  names.add(tool.name);
}
