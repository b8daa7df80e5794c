import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK `Transport` for one stateless Streamable HTTP POST answered with JSON: the messages of the POST go in,
 * and `exchange` resolves with the responses to its requests, in request order.
 *
 * Why not the SDK's StreamableHTTPServerTransport: in Node it converts every request and response between Node's
 * objects and the web `Request`/`Response` (through @hono/node-server, with a ReadableStream per body), which cost
 * more CPU per call than the rest of the MCP layer; a stateless JSON server has no stream and no session that needs
 * them. The HTTP rules that transport applies are in mcp-route.ts (`readMessages`).
 */
export class JsonExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly responses = new Map<RequestId, JSONRPCMessage>();
  private awaited = new Set<RequestId>();
  private finish?: () => void;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** Server-initiated notifications and requests have nowhere to go without a stream, as in the SDK's JSON mode. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
    if (message.id === undefined || !this.awaited.has(message.id)) return;
    this.responses.set(message.id, message);
    if (this.responses.size === this.awaited.size) this.finish?.();
  }

  /** Delivers the messages; resolves when every request among them has its response (at once when there is none). */
  exchange(messages: readonly JSONRPCMessage[]): Promise<JSONRPCMessage[]> {
    const ids = messages.filter(isJSONRPCRequest).map((m) => m.id);
    this.awaited = new Set(ids);
    const done = new Promise<JSONRPCMessage[]>((resolve) => {
      this.finish = () => resolve([...this.awaited].map((id) => this.responses.get(id) as JSONRPCMessage));
    });
    for (const message of messages) this.onmessage?.(message);
    if (this.awaited.size === 0) this.finish?.();
    return done;
  }
}
