// What MCP tools/list costs an agent, in o200k tokens (gpt-tokenizer), for the all-scopes bench key: the full list
// in both schema styles and the lean toolset (docs/agent-surfaces.md quotes these).
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { headersFor, post } from './cases.ts';
import type { Child } from './processes.ts';

type ListSize = { tokens: number; characters: number };
export type ToolListTokens = { shared: ListSize; inlined: ListSize; lean: ListSize };

export async function toolListTokens(service: Child, key: string): Promise<ToolListTokens> {
  const list = async (version: '2025-11-25' | '2025-06-18', query = ''): Promise<ListSize> => {
    const headers = { ...headersFor({ auth: true, mcp: false }, key), accept: 'application/json, text/event-stream', 'mcp-protocol-version': version };
    const res = await post(service.port, `/api/mcp${query}`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), headers);
    const json = JSON.stringify((JSON.parse(res.body.toString()) as { result: { tools: unknown[] } }).result.tools);
    return { tokens: countTokens(json), characters: json.length };
  };
  const sizes = { shared: await list('2025-11-25'), inlined: await list('2025-06-18'), lean: await list('2025-11-25', '?toolset=discovery') };
  console.log(`MCP tools/list, every scope: ${sizes.shared.tokens} tokens ($defs), ${sizes.inlined.tokens} (inlined), ${sizes.lean.tokens} (lean toolset)`);
  return sizes;
}
