import type { Tool } from './define-tool.ts';

/** The human sentence announcing a tool's deprecation, used in the OpenAPI operation and MCP tool descriptions. */
export function deprecationNotice(tool: Tool): string {
  const d = tool.deprecated;
  if (!d) return '';
  const day = (date: Date) => date.toISOString().slice(0, 10);
  return `Deprecated since ${day(d.since)}; sunset ${day(d.sunset)} (${d.sunset.toUTCString()}). Migration guide: ${d.link}`;
}
