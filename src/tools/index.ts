import type { Tool } from '../registry/define-tool.ts';
import { auditTools } from './audit.ts';
import { categoryTools } from './categories.ts';
import { productTools } from './products.ts';

/** Every tool of the service, in the order they are published. Adding a tool = adding it to its domain file. */
export const TOOLS: readonly Tool[] = Object.freeze([...productTools, ...categoryTools, ...auditTools]);

const names = new Set<string>();
for (const tool of TOOLS) {
  if (names.has(tool.name)) throw new Error(`Duplicate tool name ${tool.name}`);
  names.add(tool.name);
}
