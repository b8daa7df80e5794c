import type { CallToolResult } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import { toProblem } from '../errors.ts';
import type { InvokeResult } from '../registry/invoke-tool.ts';

/** structuredContent is the HTTP success body; the text block repeats it for clients without structured output. */
export function toolResult({ replayed, ...outcome }: InvokeResult): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(outcome) }],
    structuredContent: outcome,
    ...(replayed ? { _meta: { idempotentReplayed: true } } : {}),
  };
}

/** A failed call is a tool result, never a transport error: the text is the same problem JSON HTTP would send. */
export function toolError(err: unknown, instance: string, log: FastifyBaseLogger): CallToolResult {
  const problem = toProblem(err, instance);
  if (problem.status >= 500) log.error({ err }, 'MCP tool call failed');
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
}
