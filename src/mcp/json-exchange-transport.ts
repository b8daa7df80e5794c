import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK `Transport` for one stateless Streamable HTTP POST answered with JSON: the messages of the POST go in,
 * and `exchange` resolves with the responses to its requests, in request order.
 *
 * Why not the SDK's StreamableHTTPServerTransport: in Node it converts every request and response between Node's
 * objects and the web `Request`/`Response` (through @hono/node-server, with a ReadableStream per body), which cost
 * more CPU per call than the rest of the MCP layer; a stateless JSON server has no stream and no session that needs
 * them. The HTTP rules that transport applies are in mcp-route.ts (`readMessages`).
 *
 * Messages are told apart by their keys, not with the SDK's `isJSONRPC*` guards (each a zod parse): what comes in
 * was validated by readMessages, and what goes out is built by the SDK's Protocol.
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
    if (!('result' in message || 'error' in message) || message.id === undefined || !this.awaited.has(message.id)) return;
    this.responses.set(message.id, message);
    if (this.responses.size === this.awaited.size) this.finish?.();
  }

  /** Delivers the messages; resolves when every request among them has its response (at once when there is none). */
  exchange(messages: readonly JSONRPCMessage[]): Promise<JSONRPCMessage[]> {
    this.awaited = new Set(messages.filter(isRequest).map((m) => m.id));
    const done = new Promise<JSONRPCMessage[]>((resolve) => {
      this.finish = () => resolve([...this.awaited].map((id) => this.responses.get(id) as JSONRPCMessage));
    });
    for (const message of messages) this.onmessage?.(message);
    if (this.awaited.size === 0) this.finish?.();
    return done;
  }
}

/** A validated message with a method and an id is a request (without an id, a notification). */
export function isRequest(message: JSONRPCMessage): message is Extract<JSONRPCMessage, { method: string; id: RequestId }> {
  return 'method' in message && 'id' in message;
}
