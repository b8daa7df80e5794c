import type { CallToolResult } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import { toProblem } from '../errors.ts';
import { errorCodeOfProblem, errorOf, severityOfProblem } from '../protocols/ucp/wire.ts';
import type { InvokeResult } from '../registry/invoke-tool.ts';

/** Where a success result keeps its structuredContent's JSON (its text block), invisible to JSON and to the SDK. */
export const STRUCTURED_JSON = Symbol('structuredContent as JSON');

/** A tool result; a success result also carries the JSON its structuredContent serialises to. */
export type ToolCallResult = CallToolResult & { [STRUCTURED_JSON]?: string };

/**
 * structuredContent is the HTTP success body; the text block repeats it for clients without structured output. Its
 * JSON is made once: the direct path (direct-call.ts) writes it into the answer instead of serialising it again.
 */
export function toolResult({ replayed, ...outcome }: InvokeResult): ToolCallResult {
  const json = JSON.stringify(outcome);
  return {
    content: [{ type: 'text', text: json }],
    structuredContent: outcome,
    ...(replayed ? { _meta: { idempotentReplayed: true } } : {}),
    [STRUCTURED_JSON]: json,
  };
}

/** A failed call is a tool result, never a transport error: the text is the same problem JSON HTTP would send. */
export function toolError(err: unknown, instance: string, log: FastifyBaseLogger): CallToolResult {
  const problem = toProblem(err, instance);
  if (problem.status >= 500) log.error({ err }, 'MCP tool call failed');
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
}

/** A UCP binding tool's failure: the protocol's error response as structuredContent and text, the problem's code and detail in it. */
export function protocolToolError(err: unknown, instance: string, log: FastifyBaseLogger): CallToolResult {
  const problem = toProblem(err, instance);
  if (problem.status >= 500) log.error({ err }, 'MCP tool call failed');
  const body = errorOf(errorCodeOfProblem(problem.code), problem.detail, severityOfProblem(problem));
  return { isError: true, structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
