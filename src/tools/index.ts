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
import { siteTools } from './site.ts';
import { variantTools } from './variants.ts';
import { webhookTools } from './webhooks.ts';

const domainTools: readonly Tool[] = [
  ...productTools, ...variantTools, ...categoryTools, ...pageTools, ...serviceTools, ...siteTools, ...orderTools, ...discountTools, ...cartTools,
  ...customerTools, ...analyticsTools, ...imageTools, ...settingsTools, ...featureTools, ...webhookTools,
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
